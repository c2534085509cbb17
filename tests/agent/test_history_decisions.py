"""A card's decision is in the event log, with who and when: the run it starts says so first, so a
page rebuilt from the log (a reload) stamps the card as the live page did."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from langchain_core.messages import ToolMessage
from sqlalchemy import select

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.storage.models import AuditEntry
from sstools.testing import call_tool
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.cards import DELETE, delete_sales_card, delete_sales_card_on_a_hand_clock
from tests.agent.conftest import dataset_context
from tests.support import read_events, types


def _at(event: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(event["decided"]["at"])


async def test_an_approval_starts_its_run_with_who_approved_and_when(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE)) as agent:
        clock, cid, card = await delete_sales_card_on_a_hand_clock(agent)
        assert (await agent.decide(cid, card["confirmation_id"], "approve")).status_code == 200
        after = await agent.events_after(cid, card)
        whole = await read_events(
            agent.client,
            cid,
            agent.auth(Role.engineer),
            until=lambda e: e["_id"] == after[-1]["_id"],
        )
    started = after[0]
    assert started["type"] == "run_started"
    assert {k: v for k, v in started["decided"].items() if k != "at"} == {
        "confirmation_id": card["confirmation_id"],
        "call_id": card["call_id"],
        "status": "approved",
        "by": "engineer",
        "reason": None,
        "first_by": None,  # one person decided: no second approval
    }
    assert _at(started) == clock.now
    assert fake_superset.executed_sql == [DELETE["sql"]]
    # The log from its first event holds the card, then the decision on it, then what it did.
    kinds = types(whole)
    assert kinds.index("confirm_required") < kinds.index("tool_result")
    decided = [e for e in whole if e["type"] == "run_started" and e.get("decided")]
    assert [e["decided"]["confirmation_id"] for e in decided] == [card["confirmation_id"]]
    assert whole.index(decided[0]) == kinds.index("confirm_required") + 1


async def test_a_denial_starts_its_run_with_who_denied_and_when(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE)) as agent:
        cid, card = await delete_sales_card(agent)
        before = datetime.now(UTC)
        assert (await agent.decide(cid, card["confirmation_id"], "deny")).status_code == 200
        after = await agent.events_after(cid, card)
    assert types(after)[:2] == ["run_started", "cancelled"]
    decided = after[0]["decided"]
    assert (decided["status"], decided["by"], decided["confirmation_id"]) == (
        "denied",
        "engineer",
        card["confirmation_id"],
    )
    assert before - timedelta(seconds=1) <= _at(after[0]) <= datetime.now(UTC)
    assert fake_superset.executed_sql == []


async def test_an_expired_card_is_told_as_expired_by_nobody(
    make_agent: Any, fake_superset: FakeSuperset, settings: Settings
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE)) as agent:
        clock, cid, card = await delete_sales_card_on_a_hand_clock(agent)
        clock.now += timedelta(seconds=settings.confirmation_ttl_s)
        for _ in range(100):  # reading expires the card, once the run that showed it let go
            history = await agent.client.get(
                f"/api/agent/conversations/{cid}", headers=agent.auth(Role.engineer)
            )
            if history.json()["pending_confirmation"] is None:
                break
            await asyncio.sleep(0.05)
        after = await agent.events_after(cid, card, until=lambda e: e["type"] == "done")
    started = next(e for e in after if e["type"] == "run_started")
    assert after.index(started) <= 1, after  # at most the card re-sent before it
    assert (started["decided"]["status"], started["decided"]["by"]) == ("expired", None)
    assert _at(started) == clock.now
    assert fake_superset.executed_sql == []


async def test_a_run_a_message_starts_says_no_decision(make_agent: Any) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE)) as agent:
        _cid, card = await delete_sales_card(agent)
        events = await read_events(
            agent.client, _cid, agent.auth(Role.engineer), until=lambda e: e is not None
        )
    assert events[0]["type"] == "run_started"
    assert events[0]["decided"] is None
    assert card["type"] == "confirm_required"


async def test_a_denial_with_a_reason_reaches_the_model_the_stamp_and_the_audit(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    """The person says why («не в прод, сначала в staging»): the model reads it with the denied
    call, so it can propose something else; the card's stamp and the audit keep the words."""
    said = "не в прод, сначала в staging"
    async with make_agent(call_tool("superset_execute_sql", DELETE)) as agent:
        cid, card = await delete_sales_card(agent)
        denied = await agent.decide(
            cid, card["confirmation_id"], "deny", reason=f"  {said}\n<b>!</b> "
        )
        assert denied.status_code == 200, denied.text
        after = await agent.events_after(cid, card)
        await agent.send(
            cid, "тогда что предложишь?", dataset_context(env_id="prod"), Role.engineer
        )
        await agent.events_after(cid, after[-1])
        async with agent.app.state.services.sessions() as session:
            entries = [
                e
                for e in await session.scalars(select(AuditEntry))
                if e.action == "confirmation_decided"
            ]
        too_long = await agent.decide(cid, "cf_none", "deny", reason="x" * 501)
    assert after[0]["decided"]["reason"] == f"{said} <b>!</b>"  # one line, as the person wrote
    assert fake_superset.executed_sql == []
    told = [str(m.content) for m in agent.model.prompts[-1] if isinstance(m, ToolMessage)]
    assert any(said in text for text in told), told
    assert [(e.outcome, e.detail.get("reason")) for e in entries] == [
        ("denied", f"{said} <b>!</b>")
    ]
    assert too_long.status_code == 422
