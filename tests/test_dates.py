"""Dates as people write them: «30 ноября 2026, 00:19», genitive months, 24-hour time, UTC.

And the clock they are read from: what sstools stamps follows :mod:`sstools.clock`, so a test
can stand at a year's turn without waiting for one.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from sstools import clock
from sstools.domain.backups import archive
from sstools.git_store._repo import Repository
from sstools.operations_report import operations_report
from sstools.russian import human_datetime
from sstools.storage import audit
from sstools.storage.db import create_engine, migrate, session_factory
from sstools.web.pages import templates

NEW_YEAR = datetime(2027, 1, 1, 0, 0, 30, tzinfo=UTC)

MONTHS = [
    (1, "15 января 2026, 09:05"),
    (2, "15 февраля 2026, 09:05"),
    (3, "15 марта 2026, 09:05"),
    (4, "15 апреля 2026, 09:05"),
    (5, "15 мая 2026, 09:05"),
    (6, "15 июня 2026, 09:05"),
    (7, "15 июля 2026, 09:05"),
    (8, "15 августа 2026, 09:05"),
    (9, "15 сентября 2026, 09:05"),
    (10, "15 октября 2026, 09:05"),
    (11, "15 ноября 2026, 09:05"),
    (12, "15 декабря 2026, 09:05"),
]


@pytest.mark.parametrize(("month", "expected"), MONTHS)
def test_every_month_is_in_the_genitive(month: int, expected: str) -> None:
    assert human_datetime(datetime(2026, month, 15, 9, 5, tzinfo=UTC)) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (datetime(2026, 11, 30, 0, 19, tzinfo=UTC), "30 ноября 2026, 00:19"),  # the issue's own
        (datetime(2026, 1, 1, 0, 0, tzinfo=UTC), "1 января 2026, 00:00"),  # midnight, no «24:00»
        (datetime(2026, 3, 8, 23, 59, 59, tzinfo=UTC), "8 марта 2026, 23:59"),  # 24-hour clock
        (datetime(2026, 11, 30, 0, 19), "30 ноября 2026, 00:19"),  # naive: taken as UTC
        ("2026-11-30T00:19:00", "30 ноября 2026, 00:19"),  # Superset's changed_on_utc
        ("2026-11-30T00:19:00+00:00", "30 ноября 2026, 00:19"),
        # Another offset is shown in UTC: 03:19 in Moscow is 00:19 UTC.
        (
            datetime(2026, 11, 30, 3, 19, tzinfo=timezone(timedelta(hours=3))),
            "30 ноября 2026, 00:19",
        ),
        (
            datetime(2026, 12, 31, 23, 30, tzinfo=timezone(timedelta(hours=-1))),
            "1 января 2027, 00:30",
        ),
        (None, "—"),
    ],
)
def test_human_datetime(value: datetime | str | None, expected: str) -> None:
    assert human_datetime(value) == expected


def test_the_filter_is_registered_for_every_template() -> None:
    rendered = templates.env.from_string("{{ moment | human_date }}").render(
        moment=datetime(2026, 11, 30, 0, 19, tzinfo=UTC)
    )
    assert rendered == "30 ноября 2026, 00:19"


def test_the_moved_clock_starts_where_it_is_put_keeps_running_and_comes_back() -> None:
    with clock.moved_to(datetime(2027, 1, 1, 0, 0, 30)):  # naive: UTC
        first, second = clock.now(), clock.now()
    assert NEW_YEAR <= first <= second < NEW_YEAR + timedelta(minutes=1)
    assert abs(clock.now() - datetime.now(UTC)) < timedelta(seconds=1)


def test_a_backup_and_a_commit_made_at_new_year_carry_the_new_year(tmp_path: Path) -> None:
    with clock.moved_to(NEW_YEAR):
        backup_id = archive.new_id("ss-dev")
        commit, _ = Repository(tmp_path / "git").commit(
            "main", {"dashboards/a.yaml": b"title: A\n"}, "first", "ann <ann@sstools>"
        )
    assert backup_id.startswith("ss-dev.20270101T0000")
    assert commit is not None
    assert commit.time.date() == date(2027, 1, 1)
    assert human_datetime(commit.time).startswith("1 января 2027, 00:0")


async def test_the_last_week_seen_on_1_january_counts_the_calls_of_31_december(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'sstools.db'}"
    migrate(url)
    engine = create_engine(url)
    sessions = session_factory(engine)
    try:
        with clock.moved_to(datetime(2026, 12, 31, 23, 59, 50, tzinfo=UTC)):
            async with sessions() as session:
                await audit.record(
                    session, action="tool_call", outcome="ok", username="ирина", kind="read"
                )
        with clock.moved_to(NEW_YEAR):
            async with sessions() as session:  # `until` left to the clock, as the CLI leaves it
                report = await operations_report(session, clock.now() - timedelta(days=7))
    finally:
        await engine.dispose()
    assert report.reads.calls == 1
    assert report.until.year == 2027
