"""A model that bursts: calls per reply and task starts per turn are capped (issue 21, 4).

Counted where it happened — the executor's audited calls and the task records — not only in
the events.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from sqlalchemy import func, select

from sstools.auth.roles import Role
from sstools.storage.models import AuditEntry, TaskRecord
from tests.agent.conftest import dashboard_context
from tests.support import read_events


async def _sent(agent: Any, tool: str) -> int:
    async with agent.app.state.services.sessions() as session:
        entries = await session.scalars(select(AuditEntry).where(AuditEntry.action == "tool_call"))
        return sum(1 for entry in entries if entry.detail.get("tool") == tool)


async def _tasks(agent: Any) -> int:
    async with agent.app.state.services.sessions() as session:
        return int(await session.scalar(select(func.count()).select_from(TaskRecord)) or 0)


def _burst(calls: list[tuple[str, dict[str, Any]]], answer: str) -> Any:
    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content=answer)
        return AIMessage(
            content="",
            tool_calls=[
                {"name": name, "args": args, "id": f"c{i}"} for i, (name, args) in enumerate(calls)
            ],
        )

    return script


async def test_a_reply_of_twenty_calls_runs_five_and_tells_the_model_why(
    make_agent: Any,
) -> None:
    calls = [("search_dashboards", {"query": f"отчёт {i}"}) for i in range(20)]
    async with make_agent(_burst(calls, "Нашёл.")) as agent:
        _, events = await agent.ask("найди отчёты", dashboard_context("3"), Role.analyst)
        sent = await _sent(agent, "search_dashboards")
    assert sent == 5  # settings.agent_calls_per_reply
    assert [e["type"] for e in events].count("tool_call") == 5
    assert len(agent.model.prompts) == 2  # nothing else was asked of the model
    answers = [m for m in agent.model.prompts[1] if isinstance(m, ToolMessage)]
    assert len(answers) == 20  # every call has its answer: the history stays well-formed
    refused = [m for m in answers if "не больше 5 вызовов" in str(m.content)]
    assert len(refused) == 15
    assert events[-2]["text"].startswith("Нашёл.")


async def test_a_turn_starts_at_most_two_tasks(make_agent: Any) -> None:
    calls = [
        ("run_llm_validation", {}),
        ("run_llm_validation", {"dashboard_id": 4}),
        ("run_llm_validation", {"dashboard_id": 5}),
    ]
    async with make_agent(_burst(calls, "Запустил проверки.")) as agent:
        _, events = await agent.ask(
            "проверь дашборды 3, 4 и 5", dashboard_context("3"), Role.analyst
        )
        sent = await _sent(agent, "run_llm_validation")
        started = await _tasks(agent)
    assert sent == 2  # settings.agent_task_starts_per_turn
    assert started == 2
    outcomes = [e["outcome"] for e in events if e["type"] == "tool_result"]
    assert outcomes == ["ok", "ok", "refused"]
    refusal = next(e for e in events if e["type"] == "tool_result" and e["outcome"] == "refused")
    assert "предел задач на один запрос: 2" in refusal["message"]
    told = [m for m in agent.model.prompts[1] if isinstance(m, ToolMessage)][-1]
    assert "предел задач на один запрос: 2" in str(told.content)  # the model reads the reason too
    assert "Выполнено: Проверка дашборда — задача запущена" in events[-2]["text"]


async def test_the_caps_are_the_settings(make_agent: Any) -> None:
    calls = [("search_dashboards", {"query": f"отчёт {i}"}) for i in range(6)]
    async with make_agent(_burst(calls, "Нашёл."), agent_calls_per_reply=3) as agent:
        cid = await agent.conversation(Role.analyst)
        await agent.send(cid, "найди отчёты", dashboard_context("3"), Role.analyst)
        await read_events(agent.client, cid, agent.auth(Role.analyst))
        sent = await _sent(agent, "search_dashboards")
    assert sent == 3
