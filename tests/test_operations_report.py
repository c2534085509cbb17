"""`sstools report` on a seeded audit log gives the hand-computed SC-003 / SC-004 figures."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert

from sstools.operations_report import OperationsReport, operations_report, parse_span
from sstools.storage.db import create_blocking_engine, create_engine, migrate, session_factory
from sstools.storage.models import AuditEntry
from tests.rig import run_sstools

NOW = datetime.now(UTC)


def _call(
    tool: str, outcome: str, attempts: int, raw: int = 0, model: int = 0, **detail: Any
) -> dict[str, Any]:
    kind = "write" if tool == "deploy_dashboard" else "read"
    return {
        "tool": tool,
        "kind": kind,
        "outcome": outcome,
        "attempts": attempts,
        "raw_size": raw,
        "summarized_size": model,
        **detail,
    }


# Hand-written: the figures each test asserts are computed from these by hand in the docstrings.
SEEDED = [
    _call("search_dashboards", "ok", 1, 10_000, 2_000, transient_failures=0),
    _call("search_dashboards", "ok", 2, 6_000, 1_000, transient_failures=1),  # recovered
    _call("search_dashboards", "error", 2, status=502, transient_failures=2),  # surfaced
    _call("get_health_summary", "ok", 1, 500, 500, transient_failures=0),
    _call("get_health_summary", "timeout", 1, transient_failures=0),
    _call("get_health_summary", "ok", 2, 1_500, 700),  # written before the count: recovered
    _call("get_health_summary", "permission_denied", 1, status=403, transient_failures=0),
    _call("deploy_dashboard", "ok", 1, 300, 300, transient_failures=0),
    _call("deploy_dashboard", "error", 1, status=503, transient_failures=1),
]


def _seed(url: str) -> None:
    """SEEDED a day ago; outside the window, a failed read eight days ago and a login."""
    migrate(url)
    engine = create_blocking_engine(url)
    with engine.begin() as connection:
        rows = [
            {"at": NOW - timedelta(days=1), "action": "tool_call", "username": "ирина", **row}
            for row in SEEDED
        ]
        rows.append(
            {
                "at": NOW - timedelta(days=8),
                "action": "tool_call",
                "username": "ирина",
                **_call("search_dashboards", "error", 2, status=503, transient_failures=2),
            }
        )
        rows.append(
            {
                "at": NOW - timedelta(hours=1),
                "action": "login",
                "username": "ирина",
                "outcome": "ok",
            }
        )
        connection.execute(
            insert(AuditEntry),
            [
                {
                    "at": row.pop("at"),
                    "action": row.pop("action"),
                    "username": row.pop("username"),
                    "outcome": row.pop("outcome"),
                    "env_id": "ss-dev",
                    "detail": row,
                }
                for row in rows
            ],
        )
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The seeded audit log on SQLite, or on a fresh PostgreSQL database (``pg_url``)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'sstools.db'}"
    else:
        url = request.getfixturevalue("pg_url")
    _seed(url)
    return url


async def _report(url: str, since: timedelta) -> OperationsReport:
    engine = create_engine(url)
    async with session_factory(engine)() as session:
        report = await operations_report(session, NOW - since, NOW + timedelta(seconds=1))
    await engine.dispose()
    return report


async def test_sc_003_reads_seen_recovered_surfaced_and_writes_never_retried(
    database_url: str,
) -> None:
    """7 reads; a transient first attempt in 3 (two recovered, one surfaced); 3 failed in all
    (the 502, the timeout, the 403): 3/7 with the retry, (3 + 2)/7 without, 2 of 5 avoided."""
    report = await _report(database_url, timedelta(days=7))
    reads = report.reads
    assert (reads.calls, reads.transient_seen, reads.recovered, reads.surfaced) == (7, 3, 2, 1)
    assert reads.failed == 3
    assert reads.failure_rate == pytest.approx(3 / 7)
    assert reads.failure_rate_without_retry == pytest.approx(5 / 7)
    assert reads.failures_avoided == pytest.approx(2 / 5)
    assert report.writes.model_dump() == {"calls": 2, "transient_failures": 1, "retried": 0}


async def test_sc_004_mean_raw_and_model_chars_per_tool_over_answers_that_ended_ok(
    database_url: str,
) -> None:
    """search: (10000+6000)/2 raw, (2000+1000)/2 model; health: (500+1500)/2, (500+700)/2;
    deploy: 300, 300; every answer: 18300/5 raw, 4500/5 model."""
    sizes = {size.tool: size for size in (await _report(database_url, timedelta(days=7))).sizes}
    assert list(sizes) == ["deploy_dashboard", "get_health_summary", "search_dashboards", "*"]
    expected = {
        "deploy_dashboard": (1, 300.0, 300.0, 1.0),
        "get_health_summary": (2, 1_000.0, 600.0, 0.6),
        "search_dashboards": (2, 8_000.0, 1_500.0, 0.1875),
        "*": (5, 3_660.0, 900.0, 900 / 3_660),
    }
    for tool, (answers, raw, model, ratio) in expected.items():
        size = sizes[tool]
        assert (size.answers, size.mean_raw_chars, size.mean_model_chars) == (answers, raw, model)
        assert size.ratio == pytest.approx(ratio)


async def test_the_window_counts_only_calls_since_then(database_url: str) -> None:
    """Nine days back takes in the failed read of eight days ago; two hours back, nothing."""
    wider = (await _report(database_url, timedelta(days=9))).reads
    assert (wider.calls, wider.transient_seen, wider.surfaced, wider.failed) == (8, 4, 2, 4)
    recent = await _report(database_url, timedelta(hours=2))
    assert recent.reads.calls == recent.writes.calls == 0
    assert recent.reads.failures_avoided is None
    assert recent.sizes == []


def test_spans_as_people_write_them() -> None:
    assert parse_span("7d") == timedelta(days=7)
    assert parse_span("24h") == timedelta(hours=24)
    assert parse_span("30m") == timedelta(minutes=30)
    for wrong in ("7", "1w", "0d", "-1d", "d7"):
        with pytest.raises(ValueError, match="7d, 24h or 30m"):
            parse_span(wrong)


def _sstools(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "SSTOOLS_DATABASE_URL": f"sqlite:///{tmp_path / 'sstools.db'}"}
    return run_sstools(tmp_path, environ, "report", *args)


def test_the_command_prints_the_figures_as_json_and_as_a_table(tmp_path: Path) -> None:
    _seed(f"sqlite:///{tmp_path / 'sstools.db'}")
    as_json = _sstools(tmp_path, "--since", "7d", "--json")
    assert as_json.returncode == 0, as_json.stderr
    figures = json.loads(as_json.stdout)
    assert figures["reads"]["recovered"] == 2
    assert figures["reads"]["surfaced"] == 1
    assert figures["writes"]["retried"] == 0
    assert figures["sizes"][-1] == {
        "tool": "*",
        "answers": 5,
        "mean_raw_chars": 3660.0,
        "mean_model_chars": 900.0,
        "ratio": 900 / 3660,
    }
    table = _sstools(tmp_path)  # the default window is 7 days
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert any(line.split() == ["recovered", "by", "the", "retry", "2"] for line in lines)
    assert any(line.split() == ["failures", "avoided", "40.0%"] for line in lines)
    assert any(
        line.split() == ["search_dashboards", "2", "8000", "1500", "0.19×"] for line in lines
    )


def test_a_wrong_span_is_refused_with_the_forms_it_takes(tmp_path: Path) -> None:
    refused = _sstools(tmp_path, "--since", "a week")
    assert refused.returncode == 2
    assert "7d, 24h or 30m" in refused.stderr
