"""What a red-team pass found in the model-failure handling, kept as tests: a call refused
without running can still run when the model sends it right; a record quoted as JSON, prose
before a call, an unstorable argument, an id written as «5.0», a state described in the past
participle — each reaches the person as a true, readable answer."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from sqlalchemy import select

from sstools.auth.roles import Role
from sstools.storage.models import AuditEntry
from tests.agent.conftest import dashboard_context
from tests.support import read_events

# An id no checkpoint can store (beyond 64 bits), written as text by the model.
HUGE_ID_CALL = (
    '{"name": "get_health_summary", "arguments": {"dashboard_id": 99999999999999999999999}}'
)


async def _sent(agent: Any, tool: str) -> int:
    async with agent.app.state.services.sessions() as session:
        entries = await session.scalars(select(AuditEntry).where(AuditEntry.action == "tool_call"))
        return sum(1 for entry in entries if entry.detail.get("tool") == tool)


async def test_over_the_cap_call_retried_next_reply_runs(make_agent: Any) -> None:
    six = [
        {"name": "search_dashboards", "args": {"query": f"q{i}"}, "id": f"c{i}"} for i in range(6)
    ]

    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        replies = [m for m in messages if isinstance(m, AIMessage)]
        if not replies:
            return AIMessage(content="", tool_calls=six)
        if len(replies) == 1:  # the refused one again, alone, as the refusal told it
            return AIMessage(content="", tool_calls=[{**six[5], "id": "again"}])
        return AIMessage(content="Готово.")

    async with make_agent(script) as agent:
        cid = await agent.conversation(Role.analyst)
        await agent.send(cid, "найди", dashboard_context("3"), Role.analyst)
        await read_events(agent.client, cid, agent.auth(Role.analyst))
        sent = await _sent(agent, "search_dashboards")
    assert sent == 6  # the sixth, refused over the cap, ran when sent again alone


async def test_broken_text_call_then_real_call_runs(make_agent: Any) -> None:
    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        replies = [m for m in messages if isinstance(m, AIMessage)]
        if not replies:
            return AIMessage(
                content='<tool_call>{"name": "get_health_summary", "arguments": {</tool_call>'
            )
        if not isinstance(messages[-1], ToolMessage) or "Your reply wrote" in str(
            messages[-1].content
        ):
            return AIMessage(
                content="", tool_calls=[{"name": "get_health_summary", "args": {}, "id": "r"}]
            )
        return AIMessage(content="Дашборд в порядке.")

    async with make_agent(script) as agent:
        cid = await agent.conversation(Role.analyst)
        await agent.send(cid, "как дела?", dashboard_context("3"), Role.analyst)
        await read_events(agent.client, cid, agent.auth(Role.analyst))
        sent = await _sent(agent, "get_health_summary")
    assert sent == 1  # the proper call after the broken one ran


async def test_an_answer_quoting_columns_as_json_reaches_the_person(make_agent: Any) -> None:
    columns = '[{"name": "revenue", "type": "FLOAT"}, {"name": "region", "type": "VARCHAR"}]'
    answer = f"Колонки датасета:\n```json\n{columns}\n```"

    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        return AIMessage(content=answer)

    async with make_agent(script) as agent:
        _, events = await agent.ask(
            "какие колонки у датасета?", dashboard_context("3"), Role.analyst
        )
    final = [e for e in events if e["type"] == "message"]
    assert "revenue" in final[-1]["text"]


async def test_prose_then_bare_json_call_is_not_shown_raw(make_agent: Any) -> None:
    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content="Дашборд в порядке.")
        return AIMessage(content='Сейчас проверю: {"name": "get_health_summary", "arguments": {}}')

    async with make_agent(script) as agent:
        _, events = await agent.ask("как дела?", dashboard_context("3"), Role.analyst)
    final = [e for e in events if e["type"] == "message"]
    assert '"arguments"' not in final[-1]["text"]


async def test_a_text_call_with_a_huge_integer_is_stored(make_agent: Any) -> None:
    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content="Готово.")
        return AIMessage(content=HUGE_ID_CALL)

    async with make_agent(script) as agent:
        _, events = await agent.ask("как дела?", dashboard_context("3"), Role.analyst)
    assert not [e for e in events if e["type"] == "error"]


async def test_after_the_huge_integer_the_conversation_goes_on(make_agent: Any) -> None:
    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        said = [m for m in messages if m.type == "human"][-1].content
        if "второй" in str(said):
            return AIMessage(content="Второй ответ.")
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content="Готово.")
        return AIMessage(content=HUGE_ID_CALL)

    async with make_agent(script) as agent:
        cid, first = await agent.ask("как дела?", dashboard_context("3"), Role.analyst)
        await agent.send(cid, "второй вопрос", dashboard_context("3"), Role.analyst)
        second = await agent.events_after(cid, first[-1], Role.analyst)
    assert [e for e in second if e["type"] == "message"][-1]["text"].startswith("Второй ответ.")


async def test_a_read_answer_about_state_is_not_marked_as_a_claim(make_agent: Any) -> None:
    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content="Дашборд опубликован, последний бэкап создан сегодня в 05:10.")
        return AIMessage(
            content="", tool_calls=[{"name": "get_health_summary", "args": {}, "id": "h"}]
        )

    async with make_agent(script) as agent:
        _, events = await agent.ask("как дела у дашборда?", dashboard_context("3"), Role.analyst)
    final = [e for e in events if e["type"] == "message"][-1]["text"]
    assert "⚠" not in final


@pytest.mark.parametrize("given", [5, "5.0"])
async def test_a_made_up_id_as_a_float_string_is_refused_too(make_agent: Any, given: Any) -> None:
    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content="Готово.")
        return AIMessage(
            content="",
            tool_calls=[{"name": "get_health_summary", "args": {"dashboard_id": given}, "id": "h"}],
        )

    async with make_agent(script) as agent:
        _, events = await agent.ask(
            "как дела у этого дашборда?", dashboard_context("3"), Role.analyst
        )
    outcomes = [e["outcome"] for e in events if e["type"] == "tool_result"]
    assert outcomes == ["refused"]
