"""What an operator sees: ``GET /metrics`` after a run, retries counted, the audit log's figures."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from sstools.agent.executor import Outcome, ToolExecutor
from sstools.auth.roles import Role
from sstools.operations_report import operations_report
from sstools.storage.db import create_engine, migrate, session_factory
from sstools.testing import call_tool
from tests.agent.conftest import FaultServer, dashboard_context, run_tool
from tests.support import read_events, types

Samples = dict[tuple[str, frozenset[Any]], float]
FAMILIES = {
    "sstools_tool_calls",
    "sstools_tool_retries",
    "sstools_tool_seconds",
    "sstools_confirmations",
    "sstools_active_streams",
    "sstools_router_seconds",
}


async def _scrape(client: httpx.AsyncClient, **headers: str) -> Samples:
    response = await client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=")
    families = list(text_string_to_metric_families(response.text))
    assert {family.name for family in families} >= FAMILIES
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in families
        for sample in family.samples
    }


def _key(name: str, **labels: str) -> tuple[str, frozenset[Any]]:
    return name, frozenset(labels.items())


async def test_metrics_count_the_tool_call_of_a_run_by_tool_and_outcome(make_agent: Any) -> None:
    calls = _key("sstools_tool_calls_total", tool="get_health_summary", outcome="ok")
    timed = _key("sstools_tool_seconds_count", tool="get_health_summary")
    routed = _key("sstools_router_seconds_count")
    async with make_agent(call_tool("get_health_summary", {})) as agent:
        before = await _scrape(agent.client)
        cid = await agent.conversation(Role.engineer)  # 8 tools on a dashboard: ranked
        await agent.send(
            cid, "какой статус у этого дашборда?", dashboard_context("3"), Role.engineer
        )
        events = await read_events(agent.client, cid, agent.auth(Role.engineer))
        after = await _scrape(agent.client)
    assert types(events) == ["run_started", "tool_call", "tool_result", "message", "done"]
    assert after[calls] - before.get(calls, 0.0) == 1
    assert after[timed] - before.get(timed, 0.0) == 1
    assert after[routed] - before.get(routed, 0.0) == 1  # once per turn: its offered set is kept


async def test_metrics_want_the_token_when_one_is_set(make_agent: Any) -> None:
    token = "scrape-" + "x" * 32
    async with make_agent(
        call_tool("get_health_summary", {}), metrics_token=SecretStr(token)
    ) as agent:
        for sent in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": token}):
            refused = await agent.client.get("/metrics", headers=sent)
            assert refused.status_code == 401
            assert refused.headers["www-authenticate"] == "Bearer"
            assert "sstools_tool_calls_total" not in refused.text
        await _scrape(agent.client, Authorization=f"Bearer {token}")


@pytest.fixture
async def executor(fault: tuple[FaultServer, str], tmp_path: Path) -> AsyncIterator[ToolExecutor]:
    async def no_wait(seconds: float) -> None:
        pass

    url = f"sqlite:///{tmp_path / 'audit.db'}"
    migrate(url)
    engine = create_engine(url)
    executor = ToolExecutor(
        base_url=fault[1], timeout_s=5, sessions=session_factory(engine), sleep=no_wait
    )
    yield executor
    await executor.aclose()
    await engine.dispose()


def _value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_retries_are_counted_under_injected_5xx_and_writes_never_retried(
    executor: ToolExecutor, fault: tuple[FaultServer, str]
) -> None:
    server, _ = fault
    server.plan["/api/dashboards"] = [503, 200]
    server.plan["/api/deploy"] = [503, 200]
    retries = {
        tool: _value("sstools_tool_retries_total", tool=tool)
        for tool in ("search_dashboards", "deploy_dashboard")
    }
    read_ok = _value("sstools_tool_calls_total", tool="search_dashboards", outcome="ok")
    write_error = _value("sstools_tool_calls_total", tool="deploy_dashboard", outcome="error")

    assert (await run_tool(executor, "search_dashboards", {})).outcome is Outcome.ok
    assert (
        await run_tool(executor, "deploy_dashboard", {"target_env_id": "prod"})
    ).outcome is Outcome.error

    assert (
        _value("sstools_tool_retries_total", tool="search_dashboards")
        - retries["search_dashboards"]
        == 1
    )
    assert (
        _value("sstools_tool_retries_total", tool="deploy_dashboard") - retries["deploy_dashboard"]
        == 0
    )
    assert _value("sstools_tool_calls_total", tool="search_dashboards", outcome="ok") - read_ok == 1
    assert (
        _value("sstools_tool_calls_total", tool="deploy_dashboard", outcome="error") - write_error
        == 1
    )


async def test_the_report_reads_what_the_executor_audited(
    executor: ToolExecutor, fault: tuple[FaultServer, str], tmp_path: Path
) -> None:
    """A read recovered by the retry, one that surfaced (503 twice), a plain read and a write
    refused once by a 503: each lands where the report counts it."""
    server, _ = fault
    server.plan["/api/dashboards"] = [503, "big"]
    server.plan["/api/dashboards/10/health"] = [503]
    server.plan["/api/deploy"] = [503]
    started = datetime.now(UTC)
    big = await run_tool(executor, "search_dashboards", {})
    await run_tool(executor, "get_health_summary", {})
    await run_tool(executor, "list_environments", {})
    await run_tool(executor, "deploy_dashboard", {"target_env_id": "prod"})
    engine = create_engine(f"sqlite:///{tmp_path / 'audit.db'}")
    async with session_factory(engine)() as session:
        report = await operations_report(session, started - timedelta(seconds=1))
    await engine.dispose()
    reads = report.reads
    assert (reads.calls, reads.transient_seen, reads.recovered, reads.surfaced) == (3, 2, 1, 1)
    assert report.writes.model_dump() == {"calls": 1, "transient_failures": 1, "retried": 0}
    search = next(size for size in report.sizes if size.tool == "search_dashboards")
    assert search.mean_raw_chars == big.raw_size
    assert search.mean_model_chars == len(big.content)


async def test_raw_size_counts_characters_like_the_summary_does(
    executor: ToolExecutor, fault: tuple[FaultServer, str]
) -> None:
    """«Дашборд» is 7 characters but 14 bytes: the ratio compares like with like."""
    fault[0].plan["/api/dashboards"] = ["big"]
    result = await run_tool(executor, "search_dashboards", {})
    items = [{"id": i, "title": f"Дашборд {i}", "published": True} for i in range(400)]
    text = json.dumps({"items": items, "total": 400}, ensure_ascii=False, separators=(",", ":"))
    assert result.raw_size == len(text)
