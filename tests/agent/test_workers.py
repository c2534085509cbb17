"""Several workers on one PostgreSQL database: run locks, dead runs reaped once, checkpoints in
PostgreSQL, a paused run resumed by another worker, streams woken across workers by NOTIFY.

Two apps in one process stand for two workers here: each has its own engine, run locks, listener
and checkpointer (tests/scale/ runs real separate processes).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import psycopg
import pytest
from langchain_core.messages import AIMessage, BaseMessage
from prometheus_client import REGISTRY
from sqlalchemy import select, update
from sqlalchemy.engine import make_url

from sstools.agent.events import Done, EventLog, RunStarted
from sstools.agent.run.locks import PostgresRunLocks
from sstools.agent.run.wakeups import EventListener
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.storage.advisory import libpq_url
from sstools.storage.db import connection_budget, create_engine, migrate, session_factory
from sstools.storage.models import Conversation, ConversationEvent
from sstools.testing import answer, call_tool
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.cards import DELETE, delete_sales_card
from tests.agent.conftest import dataset_context
from tests.conftest import seed_users
from tests.support import read_events, types
from tests.tasks.support import eventually

pytestmark = pytest.mark.postgres


@pytest.fixture
async def settings(settings: Settings, pg_url: str) -> Settings:
    on_postgres = settings.model_copy(update={"database_url": pg_url})
    await seed_users(on_postgres)
    return on_postgres


async def _claim_as_dead(agent: Any, cid: str, run_id: str) -> None:
    """As if the worker running ``run_id`` was killed: the claim stays, its lock is gone."""
    async with agent.app.state.services.sessions() as session:
        await session.execute(
            update(Conversation).where(Conversation.id == cid).values(active_run_id=run_id)
        )
        await session.commit()


async def test_run_locks_exclude_other_workers_and_die_with_their_worker(pg_url: str) -> None:
    first, second = PostgresRunLocks(libpq_url(pg_url)), PostgresRunLocks(libpq_url(pg_url))
    await first.start()
    await second.start()
    try:
        assert await first.acquire("conversation-1")
        assert not await first.acquire("conversation-1")  # a second turn in the same worker
        assert not await second.acquire("conversation-1")
        assert await second.free_elsewhere(["conversation-1", "conversation-2"]) == [
            "conversation-2"
        ]
        await first.release("conversation-1")
        assert await second.acquire("conversation-1")
        assert await first.acquire("conversation-2")
        await first.aclose()  # the worker dies: its connection, and every lock on it, go
        await eventually(lambda: second.acquire("conversation-2"))  # once its backend has ended
    finally:
        await first.aclose()
        await second.aclose()


async def test_a_lock_taken_after_the_connection_dropped_is_freed_by_one_release(
    pg_url: str,
) -> None:
    first, second = PostgresRunLocks(libpq_url(pg_url)), PostgresRunLocks(libpq_url(pg_url))
    await first.start()
    await second.start()
    try:
        assert await first.acquire("conversation-1")
        async with await psycopg.AsyncConnection.connect(libpq_url(pg_url), autocommit=True) as dba:
            lock_connection = first._connection
            assert lock_connection is not None
            await dba.execute(  # PostgreSQL restarts, or a proxy cuts the lock connection
                "select pg_terminate_backend(%s)", (lock_connection.info.backend_pid,)
            )
        await eventually(lambda: second.acquire("conversation-1"))  # lost with the connection
        await second.release("conversation-1")
        # The next turn reconnects, retakes what it held, and takes its own lock once.
        assert await first.acquire("conversation-2")
        await first.release("conversation-2")
        assert await second.acquire("conversation-2")  # the one release freed it
    finally:
        await first.aclose()
        await second.aclose()


async def test_checkpoints_live_in_postgres(make_agent: Any, settings: Settings) -> None:
    async with make_agent(answer("Готово.")) as agent:
        cid = await agent.conversation()
        assert (await agent.send(cid, "привет", None)).status_code == 202
        events = await read_events(agent.client, cid, agent.auth(Role.engineer))
    assert types(events)[-1] == "done"
    with psycopg.connect(libpq_url(settings.database_url)) as connection:
        stored = connection.execute(
            "select count(*) from checkpoints where thread_id = %s", (cid,)
        ).fetchone()
    assert stored is not None
    assert stored[0] > 0
    assert not settings.checkpoints_file.exists()


async def test_a_card_asked_on_one_worker_is_approved_on_the_other_once(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    script = call_tool("superset_execute_sql", DELETE, text="Удалено.")
    asked, approved = _counted("asked"), _counted("approve")
    async with make_agent(script) as first, make_agent(script) as second:
        cid = await first.conversation()
        await first.send(cid, "удали продажи", dataset_context(env_id="prod"))
        card = (await read_events(second.client, cid, second.auth(Role.engineer)))[-1]
        assert card["type"] == "confirm_required"
        responses = await asyncio.gather(
            *(
                (first if i % 2 else second).decide(cid, card["confirmation_id"], "approve")
                for i in range(20)
            )
        )
        events = await first.events_after(cid, card)
    assert sorted(r.status_code for r in responses) == [200] + [409] * 19
    assert types(events) == ["run_started", "tool_result", "message", "done"]
    assert fake_superset.executed_sql == [DELETE["sql"]]
    assert (_counted("asked") - asked, _counted("approve") - approved) == (1, 1)


def _counted(decision: str) -> float:
    counted = REGISTRY.get_sample_value("sstools_confirmations_total", {"decision": decision})
    return counted or 0.0


async def test_two_messages_at_once_through_two_workers_one_runs(make_agent: Any) -> None:
    # The model answers only once both sends are answered: a run that ended before the second
    # send arrived would let both run, one after the other, which is not the race tested here.
    both_answered = threading.Event()

    def held(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        both_answered.wait(10)  # in LangChain's executor thread: the loop runs on
        return AIMessage(content="ок")

    async with make_agent(held) as first, make_agent(held) as second:
        cid = await first.conversation()
        for _ in range(5):  # the race both ways round, a few times
            both_answered.clear()
            responses = await asyncio.gather(
                first.send(cid, "раз", None), second.send(cid, "два", None)
            )
            both_answered.set()
            assert sorted(r.status_code for r in responses) == [202, 409]
            await read_events(first.client, cid, first.auth(Role.engineer))
            await first.idle(cid)


async def test_a_dead_workers_run_is_reported_once_however_many_workers_reap(
    make_agent: Any,
) -> None:
    async with make_agent(answer("ок")) as first, make_agent(answer("ок")) as second:
        cid = await first.conversation()
        await _claim_as_dead(first, cid, "run_lost")
        reaped = await asyncio.gather(
            first.app.state.agent.claims.reap_dead_runs(),
            second.app.state.agent.claims.reap_dead_runs(),
            first.app.state.agent.claims.reap_dead_runs(),
        )
        events = await read_events(
            second.client, cid, second.auth(Role.engineer), until=lambda e: e["type"] == "done"
        )
        again = await second.send(cid, "ещё раз", None)
    assert sum(reaped) == 1
    assert types(events) == ["error", "done"]
    assert events[0]["code"] == "run_interrupted"
    assert again.status_code == 202


async def test_a_live_run_on_another_worker_is_left_alone_until_its_worker_dies(
    make_agent: Any, settings: Settings
) -> None:
    alive = PostgresRunLocks(libpq_url(settings.database_url))  # a third worker, mid-run
    await alive.start()
    try:
        async with make_agent(answer("ок")) as agent:
            cid = await agent.conversation()
            assert await alive.acquire(cid)
            await _claim_as_dead(agent, cid, "run_elsewhere")
            assert await agent.app.state.agent.claims.reap_dead_runs() == 0
            busy = await agent.send(cid, "можно?", None)
            await alive.aclose()  # that worker is killed
            again = await agent.send(cid, "а теперь?", None)  # the busy path reaps it at once
            events = await read_events(
                agent.client,
                cid,
                agent.auth(Role.engineer),
                until=lambda e: e["type"] == "done" and e["run_id"] != "run_elsewhere",
            )
    finally:
        await alive.aclose()
    assert busy.status_code == 409
    assert again.status_code == 202
    assert [e["code"] for e in events if e["type"] == "error"] == ["run_interrupted"]
    assert types(events)[:2] == ["error", "done"]


async def test_appends_from_two_engines_get_unique_gapless_seqs(pg_url: str) -> None:
    migrate(pg_url)
    engines = [create_engine(pg_url), create_engine(pg_url)]
    logs = [EventLog(session_factory(engine), notify=True) for engine in engines]
    try:
        await asyncio.gather(
            *(logs[i % 2].append("conversation-seq", RunStarted(run_id=f"r{i}")) for i in range(60))
        )
        async with session_factory(engines[0])() as session:
            seqs = list(
                await session.scalars(
                    select(ConversationEvent.seq)
                    .where(ConversationEvent.conversation_id == "conversation-seq")
                    .order_by(ConversationEvent.seq)
                )
            )
    finally:
        for engine in engines:
            await engine.dispose()
    assert seqs == list(range(1, 61))


async def test_an_append_on_one_worker_wakes_a_stream_waiting_on_another(pg_url: str) -> None:
    migrate(pg_url)
    engines = [create_engine(pg_url), create_engine(pg_url)]
    writer = EventLog(session_factory(engines[0]), notify=True)
    reader = EventLog(session_factory(engines[1]), notify=True)
    listener = EventListener(libpq_url(pg_url), reader)
    await listener.start()
    try:
        assert listener.listening.is_set()
        waiting = asyncio.create_task(reader.wait("conversation-wake", after=0, timeout_s=60))
        await asyncio.sleep(0)  # the stream is waiting before the other worker appends
        seq = await writer.append("conversation-wake", Done(run_id="r1"))
        await asyncio.wait_for(waiting, 30)  # the poll safety net alone would take 60 s
        # Only the notification can have told the reader: it never appended nor read.
        assert reader._latest["conversation-wake"] == seq
    finally:
        await listener.aclose()
        for engine in engines:
            await engine.dispose()


async def test_a_card_whose_worker_died_before_letting_go_is_approved_and_executes_once(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    """The worker was killed between showing the card and releasing its claim (kill -9)."""
    script = call_tool("superset_execute_sql", DELETE, text="Удалено.")
    async with make_agent(script) as first, make_agent(script) as second:
        cid, card = await delete_sales_card(first)
        await _claim_as_dead(first, cid, card["run_id"])  # its claim outlived it, its lock did not
        decided = await second.decide(cid, card["confirmation_id"], "approve")
        events = await second.events_after(cid, card)
        swept = await first.app.state.agent.claims.reap_dead_runs()
    assert decided.status_code == 200, decided.text
    assert types(events) == ["run_started", "tool_result", "message", "done"]
    assert fake_superset.executed_sql == [DELETE["sql"]]
    assert swept == 0


async def test_a_sweep_racing_an_approval_never_interrupts_the_resumed_run(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    """The other worker's sweep and the approval hit the dead claim at the same moment."""
    script = call_tool("superset_execute_sql", DELETE, text="Удалено.")
    async with make_agent(script) as first, make_agent(script) as second:
        cid = await first.conversation()
        await first.send(cid, "удали продажи", dataset_context(env_id="prod"))
        card = (await read_events(first.client, cid, first.auth(Role.engineer)))[-1]
        await _claim_as_dead(first, cid, card["run_id"])
        swept, decided = await asyncio.gather(
            first.app.state.agent.claims.reap_dead_runs(),
            second.decide(cid, card["confirmation_id"], "approve"),
        )
        if decided.status_code == 409:  # the sweep held the conversation: decide again
            decided = await second.decide(cid, card["confirmation_id"], "approve")
        events = await second.events_after(cid, card)
    assert decided.status_code == 200, decided.text
    assert "run_interrupted" not in [e.get("code") for e in events], events
    assert types(events) == ["run_started", "tool_result", "message", "done"]
    assert fake_superset.executed_sql == [DELETE["sql"]]
    assert swept <= 1


async def test_a_burst_of_conversations_stays_within_the_workers_connection_budget(
    make_agent: Any, settings: Settings, postgres_server: str
) -> None:
    """Four workers must fit PostgreSQL's 100 connections: requests queue on the pool instead."""
    budget = connection_budget(settings.database_pool_size)
    peak = 0

    async def watch(database: str) -> None:
        nonlocal peak
        async with await psycopg.AsyncConnection.connect(
            postgres_server, autocommit=True
        ) as connection:
            while True:
                cursor = await connection.execute(
                    "select count(*) from pg_stat_activity where datname = %s", (database,)
                )
                row = await cursor.fetchone()
                peak = max(peak, int(row[0]) if row else 0)
                await asyncio.sleep(0.01)

    async with make_agent(
        answer("ок"), agent_runs_per_user=100, agent_streams_per_user=100
    ) as agent:
        watcher = asyncio.create_task(watch(make_url(settings.database_url).database or ""))
        try:
            cids = [await agent.conversation() for _ in range(40)]
            sent = await asyncio.gather(*(agent.send(cid, "привет", None) for cid in cids))
            streamed = await asyncio.gather(
                *(read_events(agent.client, cid, agent.auth(Role.engineer)) for cid in cids)
            )
        finally:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
    assert [r.status_code for r in sent] == [202] * 40
    assert all(types(events)[-1] == "done" for events in streamed)
    assert 4 * budget < 100
    assert 0 < peak <= budget, f"{peak} connections, budget {budget}"
