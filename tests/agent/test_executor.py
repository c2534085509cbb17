"""AGTL-FR-002/004 and the 401/403 edge cases, against a server that fails on purpose."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import select

from sstools.agent.executor import Outcome, ToolExecutor
from sstools.storage.db import create_engine, migrate, session_factory
from sstools.storage.models import AuditEntry
from tests.agent.conftest import FaultServer, run_tool


@pytest.fixture
def waits() -> list[float]:
    """The retry waits the executor asked for, in seconds: recorded, never slept."""
    return []


@pytest.fixture
async def executor(
    fault: tuple[FaultServer, str], tmp_path: Path, waits: list[float]
) -> AsyncIterator[ToolExecutor]:
    async def record_wait(seconds: float) -> None:
        waits.append(seconds)

    url = f"sqlite:///{tmp_path / 'audit.db'}"
    migrate(url)
    engine = create_engine(url)
    executor = ToolExecutor(
        base_url=fault[1],
        timeout_s=0.5,
        retry_wait_s=1.0,
        sessions=session_factory(engine),
        sleep=record_wait,
    )
    yield executor
    await executor.aclose()
    await engine.dispose()


async def test_agtl_fr_002_read_retries_once_after_a_fixed_second(
    executor: ToolExecutor, fault: tuple[FaultServer, str], waits: list[float]
) -> None:
    server, _ = fault
    server.plan["/api/dashboards"] = [503, 200]
    result = await run_tool(executor, "search_dashboards", {})
    assert result.outcome is Outcome.ok
    assert result.attempts == 2
    assert waits == [1.0]
    assert server.calls["/api/dashboards"] == 2


async def test_agtl_fr_002_read_reports_failure_after_the_one_retry(
    executor: ToolExecutor, fault: tuple[FaultServer, str], waits: list[float]
) -> None:
    fault[0].plan["/api/dashboards"] = [502]
    result = await run_tool(executor, "search_dashboards", {})
    assert result.outcome is Outcome.error
    assert result.attempts == 2
    assert result.status == 502
    assert waits == [1.0]
    assert fault[0].calls["/api/dashboards"] == 2


async def test_a_success_or_a_refusal_is_not_waited_for(
    executor: ToolExecutor, fault: tuple[FaultServer, str], waits: list[float]
) -> None:
    fault[0].plan["/api/dashboards"] = [404]
    await run_tool(executor, "search_dashboards", {})
    await run_tool(executor, "get_health_summary", {})
    assert waits == []


async def test_agtl_fr_002_write_is_never_retried_and_sent_once_without_an_unread_key(
    executor: ToolExecutor, fault: tuple[FaultServer, str], waits: list[float]
) -> None:
    server, _ = fault
    server.plan["/api/deploy"] = [503, 200]
    result = await run_tool(executor, "deploy_dashboard", {"target_env_id": "prod"})
    assert result.outcome is Outcome.error
    assert result.attempts == 1
    assert waits == []
    assert server.calls["/api/deploy"] == 1
    # No route reads an Idempotency-Key: sending one would promise a deduplication not made.
    assert "idempotency-key" not in server.headers[-1]


async def test_a_capped_start_reads_as_the_servers_reason_not_as_a_failure(
    executor: ToolExecutor, fault: tuple[FaultServer, str], waits: list[float]
) -> None:
    fault[0].plan["/api/dashboards/10/validate"] = ["capped"]
    result = await run_tool(executor, "run_llm_validation", {})
    assert (result.outcome, result.status, result.attempts) == (Outcome.error, 429, 1)
    assert result.message == (
        "«Проверка дашборда»: не запущено, сработал предел — у вас уже выполняется "
        "столько задач, сколько можно одному пользователю (предел: 5); дождитесь, пока одна из них "
        "закончится, и повторите"
    )
    assert "ошибка —" not in result.content
    assert waits == []


async def test_agtl_fr_004_a_hanging_read_times_out_clearly(
    executor: ToolExecutor, fault: tuple[FaultServer, str]
) -> None:
    fault[0].plan["/api/dashboards/10/health"] = ["hang"]
    started = time.monotonic()  # httpx's timeout runs on the real clock: the one timed check
    result = await run_tool(executor, "get_health_summary", {})
    assert time.monotonic() - started < 1.5
    assert result.outcome is Outcome.timeout
    assert "нет ответа за 0.5 с" in (result.message or "")
    assert fault[0].calls["/api/dashboards/10/health"] == 1  # timeouts are not retried


async def test_agtl_fr_004_a_hanging_write_has_unknown_status(
    executor: ToolExecutor, fault: tuple[FaultServer, str]
) -> None:
    fault[0].plan["/api/deploy"] = ["hang"]
    result = await run_tool(executor, "deploy_dashboard", {"target_env_id": "prod"})
    assert result.outcome is Outcome.unknown
    assert "статус операции неизвестен — проверьте статус" in (result.message or "")
    assert "проверьте статус задачи" in json.loads(result.content)["error"]
    assert fault[0].calls["/api/deploy"] == 1


async def test_expired_session_is_reported_without_retry(
    executor: ToolExecutor, fault: tuple[FaultServer, str]
) -> None:
    fault[0].plan["/api/dashboards"] = [401]
    result = await run_tool(executor, "search_dashboards", {})
    assert result.outcome is Outcome.session_expired
    assert result.attempts == 1
    assert result.message == "сессия истекла, обновите страницу"


async def test_a_refused_request_names_each_field_and_its_problem(
    executor: ToolExecutor, fault: tuple[FaultServer, str]
) -> None:
    fault[0].plan["/api/sql/execute"] = ["invalid"]
    result = await run_tool(executor, "superset_execute_sql", {"sql": "select 1", "database_id": 1})
    assert result.outcome is Outcome.error
    assert result.status == 422
    assert result.message == (
        "«Выполнение SQL»: ошибка — sql: String is too long; "
        "database_id: Field required; rows.2.id: Not an integer; JSON decode error"
    )
    assert json.loads(result.content)["error"] == result.message


async def test_forbidden_is_permission_denied_with_the_role(
    executor: ToolExecutor, fault: tuple[FaultServer, str]
) -> None:
    fault[0].plan["/api/sql/execute"] = [403]
    result = await run_tool(
        executor, "superset_execute_sql", {"sql": "delete from t", "database_id": 1}
    )
    assert result.outcome is Outcome.permission_denied
    assert result.required_roles == ["engineer"]


async def test_story3_acceptance3_large_answers_are_summarised_and_audited(
    executor: ToolExecutor, fault: tuple[FaultServer, str], tmp_path: Path
) -> None:
    fault[0].plan["/api/dashboards"] = ["big"]
    result = await run_tool(executor, "search_dashboards", {})
    assert result.raw_size > 4000 >= len(result.content)
    assert json.loads(result.content)["items_total_count"] == 400
    engine = create_engine(f"sqlite:///{tmp_path / 'audit.db'}")
    async with session_factory(engine)() as session:
        entry = await session.scalar(select(AuditEntry).where(AuditEntry.action == "tool_call"))
    await engine.dispose()
    assert entry is not None
    assert entry.username == "ирина"
    assert entry.env_id == "ss-dev"
    assert entry.outcome == "ok"
    assert entry.detail["tool"] == "search_dashboards"
    assert entry.detail["attempts"] == 1
    assert entry.detail["raw_size"] == result.raw_size
    assert entry.detail["summarized_size"] == len(result.content)
