"""A run reaped while it still runs says nothing after it was reported interrupted (issue 18.7).

Its worker is alive, but the connection that held the conversation's run lock is not (PostgreSQL
restarted it, a proxy cut it): the other worker finds the lock free, reaps the claim and tells
the person the run was interrupted. Two apps in one process stand for the two workers; the lock
connection is ended with ``pg_terminate_backend``, as an administrator or a restart would.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
import psycopg
import pytest
from langchain_core.messages import AIMessage, BaseMessage

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.storage.advisory import advisory_key, libpq_url, lock_parts
from sstools.testing import Script, answer, call_tool
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.cards import DELETE, delete_sales_card
from tests.agent.conftest import Agent, dataset_context
from tests.conftest import seed_users
from tests.support import read_events, types
from tests.tasks.support import eventually

pytestmark = pytest.mark.postgres

GATE_S = 20.0  # the longest a held step waits for the test to let it go


@pytest.fixture
async def settings(settings: Settings, pg_url: str) -> Settings:
    on_postgres = settings.model_copy(update={"database_url": pg_url})
    await seed_users(on_postgres)
    return on_postgres


class Gate:
    """Holds one step of a run (in the worker's thread) until the test opens it."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self._open = threading.Event()

    def hold(self) -> None:
        self.reached.set()
        if not self._open.wait(GATE_S):
            raise TimeoutError("the test never opened the gate")

    async def wait_reached(self) -> None:
        assert await asyncio.to_thread(self.reached.wait, GATE_S), "the run never got there"

    def open(self) -> None:
        self._open.set()


def held_first(gate: Gate, script: Script) -> Script:
    """``script``, but its first model call waits at the gate (the model thinking, for long)."""

    def held(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if not gate.reached.is_set():
            gate.hold()
        return script(messages, offered)

    return held


async def _end_lock_connection(settings: Settings, conversation_id: str) -> None:
    """Terminate the backend holding the conversation's run lock; return once the lock is free."""
    classid, objid = lock_parts(advisory_key("run", conversation_id))
    holder = (
        "select pid from pg_locks where locktype = 'advisory' and granted"
        " and classid::bigint = %s and objid::bigint = %s"
    )
    url = libpq_url(settings.database_url)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as dba:
        rows = await (await dba.execute(holder, (classid, objid))).fetchall()
        assert len(rows) == 1, rows  # the running turn holds it
        await dba.execute("select pg_terminate_backend(%s)", (rows[0][0],))

        async def freed() -> bool:
            return not await (await dba.execute(holder, (classid, objid))).fetchall()

        await eventually(freed, timeout_s=10)


async def _event_log(settings: Settings, conversation_id: str) -> list[dict[str, Any]]:
    url = libpq_url(settings.database_url)
    async with await psycopg.AsyncConnection.connect(url) as connection:
        cursor = await connection.execute(
            "select data from conversation_events where conversation_id = %s order by seq",
            (conversation_id,),
        )
        return [row[0] for row in await cursor.fetchall()]


async def _reap_by_posting(agent: Agent, conversation_id: str) -> str:
    """A message through the other worker finds the claim's lock free: it reaps, then runs."""
    accepted = await agent.send(conversation_id, "ну что там?", None)
    assert accepted.status_code == 202, accepted.text
    run_id: str = accepted.json()["run_id"]
    await read_events(
        agent.client,
        conversation_id,
        agent.auth(Role.engineer),
        until=lambda e: e["type"] == "done" and e["run_id"] == run_id,
    )
    return run_id


async def _finished(agent: Agent) -> None:
    """Until the worker has no run left going (the held one has had every chance to speak)."""
    runtime = agent.app.state.agent

    async def idle() -> bool:
        return not runtime._tasks  # the runtime's own run tasks, read from the test's thread

    await eventually(idle, timeout_s=GATE_S)


def _after_interruption(events: list[dict[str, Any]], run_id: str) -> list[str]:
    """What the log holds of ``run_id`` after the reaper reported it interrupted."""
    reported = [
        i
        for i, e in enumerate(events)
        if e["type"] == "error" and e.get("code") == "run_interrupted" and e["run_id"] == run_id
    ]
    assert len(reported) == 1, events  # the reaping worker said it, once
    return types([e for e in events[reported[0] + 1 :] if e.get("run_id") == run_id])


async def _history(agent: Agent, conversation_id: str) -> list[tuple[str, str]]:
    response = await agent.client.get(
        f"/api/agent/conversations/{conversation_id}", headers=agent.auth(Role.engineer)
    )
    assert response.status_code == 200, response.text
    return [(m["role"], m["text"]) for m in response.json()["messages"]]


async def test_a_run_reaped_mid_turn_says_nothing_after_it_was_reported_interrupted(
    make_agent: Any, settings: Settings
) -> None:
    gate = Gate()
    async with (
        make_agent(held_first(gate, answer("Готово, вот ответ."))) as first,
        make_agent(answer("Слушаю.")) as second,
    ):
        cid = await first.conversation()
        try:
            accepted = await first.send(cid, "посчитай всё", None)
            assert accepted.status_code == 202
            run_id = accepted.json()["run_id"]
            await gate.wait_reached()  # the model is thinking on the first worker
            await _end_lock_connection(settings, cid)
            await _reap_by_posting(second, cid)
        finally:
            gate.open()  # the model answers after all
        await _finished(first)
        events = await _event_log(settings, cid)
        history = await _history(second, cid)
    assert _after_interruption(events, run_id) == ["done"]  # the reaper's, and no other
    assert [e["type"] for e in events if e["run_id"] == run_id] == [
        "run_started",
        "error",
        "done",
    ]
    assert ("assistant", "Готово, вот ответ.") not in history
    assert any(role == "assistant" and text.startswith("Слушаю.") for role, text in history)


async def test_a_run_reaped_before_it_asked_leaves_no_card_to_block_the_conversation(
    make_agent: Any, settings: Settings
) -> None:
    """The held model comes back wanting a write: the run must not ask for it any more."""
    gate = Gate()
    wants_a_write = call_tool("superset_execute_sql", DELETE, text="Удалено.")
    async with (
        make_agent(held_first(gate, wants_a_write)) as first,
        make_agent(answer("Слушаю.")) as second,
    ):
        cid = await first.conversation()
        try:
            accepted = await first.send(cid, "удали продажи", dataset_context(env_id="prod"))
            assert accepted.status_code == 202
            run_id = accepted.json()["run_id"]
            await gate.wait_reached()
            await _end_lock_connection(settings, cid)
            await _reap_by_posting(second, cid)
        finally:
            gate.open()
        await _finished(first)
        events = await _event_log(settings, cid)
        conversation = await second.client.get(
            f"/api/agent/conversations/{cid}", headers=second.auth(Role.engineer)
        )
        next_message = await second.send(cid, "и ещё вопрос", None)
    assert _after_interruption(events, run_id) == ["done"]  # no tool_call, no card
    assert conversation.json()["pending_confirmation"] is None
    assert next_message.status_code == 202, next_message.text


async def test_an_approved_write_reaped_while_it_runs_never_reports_an_outcome(
    make_agent: Any, settings: Settings, fake_superset: FakeSuperset
) -> None:
    """The person was told the run was interrupted: the write's result must not follow it.

    The write was already with Superset when the claim went, so it happened (nothing can call it
    back); what the run must not do is claim an outcome after the interruption was reported.
    """
    gate = Gate()
    write_path = "/api/v1/sqllab/execute/"
    answered = fake_superset.handle

    async def slow_write(request: httpx.Request) -> httpx.Response:
        response = answered(request)  # done in Superset; its answer is slow to come back
        if request.url.path == write_path:
            await asyncio.to_thread(gate.hold)
        return response

    fake_superset.handle = slow_write  # type: ignore[method-assign, assignment]
    script = call_tool("superset_execute_sql", DELETE, text="Удалено.")
    async with (
        make_agent(script, tool_timeout_s=GATE_S + 10) as first,
        make_agent(answer("Слушаю.")) as second,
    ):
        cid, card = await delete_sales_card(first)
        try:
            decided = await first.decide(cid, card["confirmation_id"], "approve")
            assert decided.status_code == 200, decided.text
            run_id = decided.json()["run_id"]
            await gate.wait_reached()  # the write is in Superset, its answer not back yet
            await _end_lock_connection(settings, cid)
            await _reap_by_posting(second, cid)
        finally:
            gate.open()
        await _finished(first)
        events = await _event_log(settings, cid)
        history = await _history(second, cid)
    assert _after_interruption(events, run_id) == ["done"]  # the reaper's, and no other
    assert types([e for e in events if e["run_id"] == run_id]) == ["run_started", "error", "done"]
    assert ("assistant", "Удалено.") not in history
    assert fake_superset.executed_sql == [DELETE["sql"]]  # sent before the claim went: once
