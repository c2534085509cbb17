"""«Одобрять похожие до конца сеанса» (issue 25 §1), over real HTTP and SSE with a scripted model:
a dev approval that covers similar calls runs the same tool in the same dev environment without
a card for the rest of the conversation; it is never offered for, nor applied to, prod."""

from __future__ import annotations

from typing import Any

from sstools.auth.roles import Role
from sstools.testing import call_tool
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.conftest import dataset_context
from tests.support import read_events, types

DELETE = {"sql": "delete from sales where 1=1", "database_id": 1}


async def _turn(agent: Any, cid: str, env_id: str, after: int | None) -> list[dict[str, Any]]:
    await agent.send(cid, "удали продажи", dataset_context(env_id=env_id))
    return await read_events(agent.client, cid, agent.auth(Role.engineer), last_event_id=after)


def _sql_runs(fake: FakeSuperset) -> int:
    """SQL Superset ran (the fake answers for every environment)."""
    return len(fake.executed_sql)


async def test_a_dev_approval_for_similar_calls_skips_the_next_cards_in_dev_only(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE), approvals_prod=1) as agent:
        cid = await agent.conversation()
        first = await _turn(agent, cid, "ss-dev", None)
        card = first[-1]
        assert card["type"] == "confirm_required", first
        approved = await agent.client.post(
            f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}",
            json={"decision": "approve", "similar": True},
            headers=agent.auth(Role.engineer),
        )
        assert approved.status_code == 200, approved.text
        ran = await read_events(
            agent.client, cid, agent.auth(Role.engineer), last_event_id=card["_id"]
        )
        assert _sql_runs(fake_superset) == 1

        # The same call in the same dev environment: no card, it runs, and its line says why.
        again = await _turn(agent, cid, "ss-dev", ran[-1]["_id"])
        assert "confirm_required" not in types(again), again
        call = next(event for event in again if event["type"] == "tool_call")
        assert call["approved_ahead"] is True
        assert [e["outcome"] for e in again if e["type"] == "tool_result"] == ["ok"]
        assert _sql_runs(fake_superset) == 2

        # prod in the same conversation still asks, and may not be approved «similar».
        prod = await _turn(agent, cid, "prod", again[-1]["_id"])
        prod_card = prod[-1]
        assert prod_card["type"] == "confirm_required", prod
        refused = await agent.client.post(
            f"/api/agent/conversations/{cid}/confirmations/{prod_card['confirmation_id']}",
            json={"decision": "approve", "similar": True},
            headers=agent.auth(Role.engineer),
        )
        assert refused.status_code == 422
        assert refused.json()["detail"][0]["loc"] == ["body", "similar"]
        assert "dev" in refused.json()["detail"][0]["msg"]
        assert _sql_runs(fake_superset) == 2  # nothing ran in prod
        denied = await agent.decide(cid, prod_card["confirmation_id"], "deny")
        assert denied.status_code == 200


async def test_without_the_tick_every_dev_call_asks_again(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE)) as agent:
        cid = await agent.conversation()
        card = (await _turn(agent, cid, "ss-dev", None))[-1]
        assert (await agent.decide(cid, card["confirmation_id"], "approve")).status_code == 200
        ran = await read_events(
            agent.client, cid, agent.auth(Role.engineer), last_event_id=card["_id"]
        )
        again = await _turn(agent, cid, "ss-dev", ran[-1]["_id"])
        assert again[-1]["type"] == "confirm_required", again
        assert (await agent.decide(cid, again[-1]["confirmation_id"], "deny")).status_code == 200
