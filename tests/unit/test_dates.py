"""Dates as people write them: «30 ноября 2026, 00:19», genitive months, 24-hour time, UTC."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from sstools.dates import human_datetime
from sstools.web.pages import templates

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
