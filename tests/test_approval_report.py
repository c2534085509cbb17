"""`sstools report`'s approvals per stage: from cards and held writes stored on a hand clock, the
hand-computed approval rate, median time to decide and edited share (function and command)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sstools import clock
from sstools.approval_report import StageApprovals
from sstools.cli import app as cli_app
from sstools.operations_report import operations_report
from sstools.storage.db import create_engine, migrate, session_factory
from sstools.storage.models import Base, Confirmation, WriteRequest
from tests.conftest import write_environments_file

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)  # the hand clock: no test reads today's date
STAGES = {"prod-main": "prod"}  # the held writes' environments, as the environments file says


def _card(
    number: int, stage: str | None, status: str, took_s: float | None, ago_h: float = 2
) -> Confirmation:
    asked = NOW - timedelta(hours=ago_h)
    return Confirmation(
        id=f"card-{number}",
        conversation_id=f"conversation-{number}",
        interrupt_id="interrupt",
        call_id=f"call-{number}",
        tool="superset_execute_sql",
        args_hash="hash",
        env_id=None if stage is None else f"{stage}-env",
        username="ирина",
        event={"type": "confirm_required", "decision": {"stage": stage}},
        status=status,
        created_at=asked,
        expires_at=asked + timedelta(hours=4),
        decided_at=None if took_s is None else asked + timedelta(seconds=took_s),
    )


def _held(number: int, env_id: str, status: str, took_s: float | None) -> WriteRequest:
    asked = NOW - timedelta(hours=1)
    return WriteRequest(
        id=f"{number:032x}",
        kind="sql",
        body={},
        env_id=env_id,
        digest="digest",
        title="DELETE",
        objects=[],
        requested_by="ирина",
        requester_id="uid",
        requester_token_version=0,
        approver_role="engineer",
        status=status,
        created_at=asked,
        expires_at=asked + timedelta(hours=4),
        decided_at=None if took_s is None else asked + timedelta(seconds=took_s),
    )


def _seeded() -> list[Base]:
    """Fresh rows each time (a row once stored belongs to that database).

    prod: 6 asked; decided 4 (approved 120 s and a held write 300 s, denied 60 s, edited 30 s):
    rate 2/4, median (60 + 120)/2 = 90 s, edited 1/4; one expired, one awaiting the second
    person. dev: approved 10 s and 20 s, denied 40 s: rate 2/3, median 20 s, edited 0. none (a
    git write): approved 5 s. unknown: a held write of an environment no longer named.
    """
    return [
        _card(1, "prod", "approved", 120),
        _card(2, "prod", "denied", 60),
        _card(3, "prod", "edited", 30),
        _card(4, "prod", "expired", 4 * 3600),
        _card(5, "prod", "awaiting_second", None),
        _held(6, "prod-main", "approved", 300),
        _card(7, "dev", "approved", 10),
        _card(8, "dev", "approved", 20),
        _card(9, "dev", "denied", 40),
        _card(10, None, "approved", 5),
        _held(11, "gone", "expired", 4 * 3600),
        _card(12, "prod", "denied", 1, ago_h=24 * 8),  # before the window
    ]


async def _seed(url: str) -> None:
    migrate(url)
    engine = create_engine(url)
    async with session_factory(engine)() as session:
        session.add_all(_seeded())
        await session.commit()
    await engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    url = (
        f"sqlite:///{tmp_path / 'sstools.db'}"
        if request.param == "sqlite"
        else request.getfixturevalue("pg_url")
    )
    await _seed(url)
    return url


async def _approvals(url: str) -> dict[str, StageApprovals]:
    engine = create_engine(url)
    async with session_factory(engine)() as session:
        report = await operations_report(session, NOW - timedelta(days=7), NOW, STAGES)
    await engine.dispose()
    return {one.stage: one for one in report.approvals}


async def test_per_stage_the_rate_the_median_time_and_the_edited_share(database_url: str) -> None:
    stages = await _approvals(database_url)
    assert list(stages) == ["dev", "prod", "none", "unknown"]
    prod = stages["prod"]
    counts = (prod.asked, prod.approved, prod.denied, prod.edited, prod.expired, prod.waiting)
    assert counts == (6, 2, 1, 1, 1, 1)
    assert prod.approval_rate == pytest.approx(0.5)
    assert prod.median_seconds_to_decide == pytest.approx(90)
    assert prod.edited_share == pytest.approx(0.25)
    dev = stages["dev"]
    assert (dev.asked, dev.approved, dev.denied) == (3, 2, 1)
    assert dev.approval_rate == pytest.approx(2 / 3)
    assert dev.median_seconds_to_decide == pytest.approx(20)
    assert dev.edited_share == 0
    assert (stages["none"].approved, stages["none"].median_seconds_to_decide) == (1, 5)
    unknown = stages["unknown"]
    assert (unknown.asked, unknown.expired, unknown.approval_rate) == (1, 1, None)
    assert unknown.median_seconds_to_decide is None  # an expiry is nobody's decision


def test_the_command_prints_them_as_a_table_and_as_json(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sstools.db'}"
    asyncio.run(_seed(url))
    environments = write_environments_file(
        tmp_path,
        [
            {
                "id": "prod-main",
                "name": "Prod",
                "stage": "prod",
                "url": "http://127.0.0.1:9",
                "username": "svc",
                "password_env": "PW",
            }
        ],
        secrets={"PW": "x"},
    )
    environ = {"SSTOOLS_DATABASE_URL": url, "SSTOOLS_ENVIRONMENTS_FILE": str(environments)}
    with clock.moved_to(NOW):
        as_json = CliRunner().invoke(cli_app, ["report", "--since", "7d", "--json"], env=environ)
        table = CliRunner().invoke(cli_app, ["report"], env=environ)
    assert as_json.exit_code == 0, as_json.output
    prod = next(one for one in json.loads(as_json.output)["approvals"] if one["stage"] == "prod")
    assert (prod["asked"], prod["approved"], prod["waiting"]) == (6, 2, 1)
    assert prod["approval_rate"] == pytest.approx(0.5)
    assert prod["median_seconds_to_decide"] == pytest.approx(90)
    assert prod["edited_share"] == pytest.approx(0.25)
    assert table.exit_code == 0, table.output
    rows = [line.split() for line in table.output.splitlines()]
    assert ["prod", "6", "2", "1", "1", "0", "1", "1", "50.0%", "1.5m", "25.0%"] in rows
    assert ["dev", "3", "2", "1", "0", "0", "0", "0", "66.7%", "20s", "0.0%"] in rows
