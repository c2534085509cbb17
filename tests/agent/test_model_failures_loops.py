"""A model that loops or goes silent: the person gets the answer in hand (issue 21, 2-3)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from sqlalchemy import select

from sstools.agent import texts
from sstools.agent.invocation import ToolCall
from sstools.agent.turn import repeats
from sstools.auth.roles import Role
from sstools.storage.models import AuditEntry
from tests.agent.conftest import dashboard_context
from tests.support import types

HEALTH_TITLE = "Сводка состояния дашборда"


async def _tool_calls(agent: Any, tool: str) -> int:
    """How many calls of ``tool`` the executor sent (each is audited)."""
    async with agent.app.state.services.sessions() as session:
        entries = await session.scalars(select(AuditEntry).where(AuditEntry.action == "tool_call"))
        return sum(1 for entry in entries if entry.detail.get("tool") == tool)


def _always_health(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    call = {"name": "get_health_summary", "args": {}, "id": f"c{len(messages)}"}
    return AIMessage(content="", tool_calls=[call])


async def test_a_model_repeating_a_read_gets_it_run_once_and_the_result_rendered(
    make_agent: Any,
) -> None:
    began = time.monotonic()
    async with make_agent(_always_health) as agent:
        _, events = await agent.ask(
            "как дела у этого дашборда?", dashboard_context("3"), Role.analyst
        )
        sent = await _tool_calls(agent, "get_health_summary")
    assert sent == 1  # the same read with the same arguments ran once
    # Told once that the answer is in hand, it asked again: the run answered with the result.
    assert len(agent.model.prompts) == 3
    told = agent.model.prompts[2][-1]
    assert isinstance(told, ToolMessage)
    assert "already answered" in str(told.content)
    assert "error" not in types(events)
    assert types(events)[-2:] == ["message", "done"]
    answer = events[-2]["text"]
    assert answer.startswith(f"**{HEALTH_TITLE}**")
    assert "Дашборд 3" in answer  # the health result, rendered in words
    assert f"Выполнено: {HEALTH_TITLE} — готово." in answer
    assert texts.RUN_TOO_LONG not in answer
    assert time.monotonic() - began < 20


async def test_a_model_told_it_has_the_answer_answers(make_agent: Any) -> None:
    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if "already answered" in str(messages[-1].content):
            return AIMessage(content="Дашборд 3 в порядке.")
        return _always_health(messages, offered)

    async with make_agent(script) as agent:
        _, events = await agent.ask(
            "как дела у этого дашборда?", dashboard_context("3"), Role.analyst
        )
        sent = await _tool_calls(agent, "get_health_summary")
    assert sent == 1
    assert [e["type"] for e in events].count("tool_call") == 1  # the repeat shows nothing
    assert events[-2]["text"].startswith("Дашборд 3 в порядке.")


async def test_an_empty_answer_after_a_result_is_filled_from_it(make_agent: Any) -> None:
    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content="")
        return _always_health(messages, offered)

    async with make_agent(script) as agent:
        _, events = await agent.ask(
            "как дела у этого дашборда?", dashboard_context("3"), Role.analyst
        )
    answer = events[-2]["text"]
    assert events[-2]["type"] == "message"
    assert answer.startswith(f"**{HEALTH_TITLE}**")
    assert "Дашборд 3" in answer


async def test_an_empty_answer_with_nothing_to_fill_it_says_so(make_agent: Any) -> None:
    async with make_agent(lambda messages, offered: AIMessage(content="  ")) as agent:
        _, events = await agent.ask("привет", None, Role.analyst)
    assert types(events) == ["run_started", "message", "done"]
    assert events[1]["text"].startswith("модель не дала ответа")


def _same_id_health(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    """A model that numbers its calls from zero in every reply (llama.cpp's templates do)."""
    call = {"name": "get_health_summary", "args": {}, "id": "call_0"}
    return AIMessage(content="", tool_calls=[call])


def _spelled_differently(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    """The same call each time, its arguments written another way: the id as text, the
    default spelled out, then left out."""
    spellings: list[dict[str, Any]] = [
        {"dashboard_id": 3},
        {"dashboard_id": "3", "detail": False},
        {"dashboard_id": 3.0},
    ]
    args = spellings[min(len(messages) // 2, len(spellings) - 1)]
    call = {"name": "get_health_summary", "args": args, "id": f"c{len(messages)}"}
    return AIMessage(content="", tool_calls=[call])


@pytest.mark.parametrize("script", [_same_id_health, _spelled_differently, _always_health])
async def test_the_same_read_runs_once_a_turn_every_time(make_agent: Any, script: Any) -> None:
    """Issue 33 §10: the loop guard holds every time, whatever the ids or spelling."""
    async with make_agent(script) as agent:
        for run in range(1, 6):
            _, events = await agent.ask(
                "как дела у дашборда?", dashboard_context("3"), Role.analyst
            )
            assert await _tool_calls(agent, "get_health_summary") == run  # once each turn
            assert types(events)[-2:] == ["message", "done"]


def _poll_turn(*statuses: str) -> list[AnyMessage]:
    """A turn where the model read one task's record once per status given."""
    turn: list[AnyMessage] = [HumanMessage(content="выкати и скажи, когда закончится")]
    for n, status in enumerate(statuses):
        call = {"name": "get_task_status", "args": {"task_id": "a" * 32}, "id": f"c{n}"}
        turn.append(AIMessage(content="", tool_calls=[call]))
        answer = json.dumps({"id": "a" * 32, "status": status})
        turn.append(ToolMessage(content=answer, tool_call_id=f"c{n}", name="get_task_status"))
    return turn


def test_following_a_running_task_is_not_a_loop_but_rereading_a_finished_one_is() -> None:
    """A model polling a task it started reads it again while it runs (the answer changes);
    once the record says it ended, the same read again is a loop and is not run."""
    poll: ToolCall = {"name": "get_task_status", "args": {"task_id": "a" * 32}, "id": "next"}
    assert not repeats([poll], _poll_turn("queued", "running"))
    assert repeats([poll], _poll_turn("running", "succeeded"))
    health: ToolCall = {"name": "get_health_summary", "args": {"dashboard_id": 3}, "id": "h1"}
    read_twice: list[AnyMessage] = [
        HumanMessage(content="как дела?"),
        AIMessage(content="", tool_calls=[{**health, "id": "h0"}]),
        ToolMessage(content='{"status": "running"}', tool_call_id="h0", name="get_health_summary"),
    ]
    assert repeats([health], read_twice)  # only a task's record is followed
