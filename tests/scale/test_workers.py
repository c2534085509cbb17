"""Two ``sstools serve`` processes on one PostgreSQL database behave as one service (issue 12).

Worker A and worker B share the database, the JWT secret and the environments file (a fake
Superset on a loopback port, which counts the SQL it executes: the side effect of a write). The
model is the offline planner, so each message below picks its tool deterministically.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.rig import page_context
from tests.scale.conftest import Pair
from tests.support import read_events, types

pytestmark = pytest.mark.postgres

WRITE_SQL = "delete from sales where 1=1"
WRITE = f"выполни `{WRITE_SQL}` в базе 1"  # superset_execute_sql: a write, so a card first
READ = "расскажи про этот дашборд"  # get_health_summary: reads /api/v1/dashboard/1 and more
DASHBOARD_PATH = "/api/v1/dashboard/1"


def dashboard_context() -> dict[str, Any]:
    return page_context("dashboard", "1", "ss-dev")


def prod_dataset_context() -> dict[str, Any]:
    return page_context("dataset", "1", "prod")


def interrupted(event: dict[str, Any]) -> bool:
    return event["type"] == "error" and event.get("code") == "run_interrupted"


async def _card(pair: Pair) -> tuple[str, dict[str, Any]]:
    """A conversation on A whose run paused on a confirmation card (nothing executed yet)."""
    cid = await pair.a.conversation()
    accepted = await pair.a.send(cid, WRITE, prod_dataset_context())
    assert accepted.status_code == 202, accepted.text
    events = await read_events(pair.a.client, cid, pair.a.headers)
    assert events[-1]["type"] == "confirm_required", events
    assert pair.executed_sql == []
    return cid, events[-1]


async def test_message_through_a_streams_complete_and_in_order_from_b(pair: Pair) -> None:
    cid = await pair.a.conversation()
    # B's stream is open before the message exists: what it gets comes from A's run as it goes.
    from_b = asyncio.create_task(read_events(pair.b.client, cid, pair.b.headers))
    accepted = await pair.a.send(cid, READ, dashboard_context())
    assert accepted.status_code == 202, accepted.text
    streamed_by_b = await from_b
    streamed_by_a = await read_events(pair.a.client, cid, pair.a.headers)
    resumed_on_b = await read_events(pair.b.client, cid, pair.b.headers, last_event_id=2)

    assert streamed_by_b == streamed_by_a
    assert [e["_id"] for e in streamed_by_b] == list(range(1, len(streamed_by_b) + 1))
    assert types(streamed_by_b)[0] == "run_started"
    assert types(streamed_by_b)[-1] == "done"
    assert "tool_result" in types(streamed_by_b)
    assert {e["run_id"] for e in streamed_by_b} == {accepted.json()["run_id"]}
    assert resumed_on_b == streamed_by_a[2:]  # Last-Event-ID works on the other worker too


async def test_confirmation_created_on_a_and_approved_on_b_executes_once(pair: Pair) -> None:
    cid, card = await _card(pair)
    decided = await pair.b.decide(cid, card["confirmation_id"])
    assert decided.status_code == 200, decided.text
    after = await read_events(pair.b.client, cid, pair.b.headers, last_event_id=card["_id"])
    assert types(after)[-1] == "done", after
    results = [e for e in after if e["type"] == "tool_result"]
    assert [r["outcome"] for r in results] == ["ok"], after
    assert pair.executed_sql == [WRITE_SQL], after


async def test_twenty_parallel_approvals_over_both_workers_execute_once(pair: Pair) -> None:
    cid, card = await _card(pair)
    sides = [pair.a, pair.b] * 10
    responses = await asyncio.gather(*(side.decide(cid, card["confirmation_id"]) for side in sides))
    after = await read_events(pair.a.client, cid, pair.a.headers, last_event_id=card["_id"])
    assert sorted(r.status_code for r in responses) == [200] + [409] * 19, [
        (r.status_code, r.text) for r in responses if r.status_code != 409
    ]
    assert types(after)[-1] == "done", after
    assert pair.executed_sql == [WRITE_SQL], after


async def test_simultaneous_messages_through_a_and_b_one_accepted_one_refused(pair: Pair) -> None:
    cid = await pair.a.conversation()
    pair.superset.hold(DASHBOARD_PATH)  # the accepted run stays active until both have answered
    try:
        responses = await asyncio.gather(
            pair.a.send(cid, READ, dashboard_context()),
            pair.b.send(cid, READ, dashboard_context()),
        )
    finally:
        pair.superset.release()
    assert sorted(r.status_code for r in responses) == [202, 409], [
        (r.status_code, r.text) for r in responses
    ]
    events = await read_events(pair.b.client, cid, pair.b.headers)
    accepted = next(r for r in responses if r.status_code == 202).json()["run_id"]
    assert types(events).count("run_started") == 1
    assert {e["run_id"] for e in events} == {accepted}
    assert types(events)[-1] == "done"


async def test_paused_run_survives_kill_9_of_its_worker_and_executes_once_on_the_other(
    pair: Pair,
) -> None:
    cid, card = await _card(pair)
    pair.a.worker.kill()
    replay = await read_events(pair.b.client, cid, pair.b.headers, last_event_id=card["_id"])
    assert types(replay) == ["confirm_required"], replay
    assert replay[0]["confirmation_id"] == card["confirmation_id"]
    decided = await pair.b.decide(cid, card["confirmation_id"])
    assert decided.status_code == 200, decided.text
    after = await read_events(pair.b.client, cid, pair.b.headers, last_event_id=card["_id"])
    assert types(after)[-1] == "done", after
    assert pair.executed_sql == [WRITE_SQL], after


async def test_run_cut_by_kill_9_is_reported_once_and_the_conversation_goes_on(
    pair: Pair,
) -> None:
    cid = await pair.a.conversation()
    pair.superset.hold(DASHBOARD_PATH)
    accepted = await pair.a.send(cid, READ, dashboard_context())
    assert accepted.status_code == 202, accepted.text
    assert await asyncio.to_thread(pair.superset.waiting.wait, 30), "the run never reached its tool"
    pair.a.worker.kill()  # mid-tool: A's run is gone with its process
    pair.superset.release()

    cut = await read_events(pair.b.client, cid, pair.b.headers, timeout_s=45)
    assert [e for e in cut if interrupted(e)], cut
    assert types(cut)[-1] == "done"
    again = await pair.b.send(cid, READ, dashboard_context())
    assert again.status_code == 202, again.text
    rest = await read_events(pair.b.client, cid, pair.b.headers, last_event_id=cut[-1]["_id"])
    assert "tool_result" in types(rest)
    assert types(rest)[-1] == "done"
    everything = cut + rest
    assert sum(interrupted(e) for e in everything) == 1
    assert [e["_id"] for e in everything] == list(range(1, len(everything) + 1))


async def test_a_worker_starting_does_not_interrupt_the_run_of_another(pair: Pair) -> None:
    cid = await pair.a.conversation()
    pair.superset.hold(DASHBOARD_PATH)
    try:
        accepted = await pair.a.send(cid, READ, dashboard_context())
        assert accepted.status_code == 202, accepted.text
        assert await asyncio.to_thread(pair.superset.waiting.wait, 30)
        await asyncio.to_thread(pair.fleet.restart, pair.b.worker)  # its start-up recovery runs
        pair.b.client.base_url = pair.b.worker.url
    finally:
        pair.superset.release()
    events = await read_events(pair.b.client, cid, pair.b.headers)
    assert not [e for e in events if interrupted(e)], events
    assert "tool_result" in types(events)
    assert types(events)[-1] == "done"
