"""«Одобрять похожие до конца сеанса» (issue 25 §1), over real HTTP and SSE with a scripted model:
a dev approval of a plan-bound write that covers similar calls runs the same tool into the same
dev environment without a card for the rest of the conversation — each time on a plan made
afresh — and never covers SQL, another conversation, staging or prod."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from sstools import clock
from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import add_user
from sstools.config import Settings
from sstools.testing import call_tool
from tests.agent.cards import DELETE, delete_sales_card
from tests.agent.conftest import dashboard_context
from tests.agent.deploy_server import DeployServer
from tests.support import read_events, types

TO_DEV = {"dashboard_ids": [10, 11], "target_env_id": "ss-dev"}
ASKED = "перенеси дашборды 10 и 11 в dev"


async def _turn(agent: Any, cid: str, after: int | None, text: str = ASKED) -> list[dict[str, Any]]:
    await agent.send(cid, text, dashboard_context(env_id="staging"))
    return await read_events(agent.client, cid, agent.auth(Role.engineer), last_event_id=after)


async def _approve(agent: Any, cid: str, card: dict[str, Any], **body: Any) -> Any:
    return await agent.client.post(
        f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}",
        json={"decision": "approve", **body},
        headers=agent.auth(Role.engineer),
    )


async def test_a_dev_approval_for_similar_calls_runs_the_next_ones_on_fresh_plans_without_a_card(
    make_agent: Any, deploys: tuple[DeployServer, str]
) -> None:
    server, url = deploys
    async with make_agent(call_tool("execute_migration", TO_DEV), tools_base_url=url) as agent:
        cid = await agent.conversation()
        first = await _turn(agent, cid, None)
        card = first[-1]
        assert card["type"] == "confirm_required", first
        assert card["decision"]["similar"] is True  # a plan-bound write to dev
        assert (await _approve(agent, cid, card, similar=True)).status_code == 200
        ran = await agent.events_after(cid, card)
        assert len(server.applies) == 1

        # The same call into the same dev environment: no card, it runs, its line says why.
        plans = len(server.plans)
        again = await _turn(agent, cid, ran[-1]["_id"])
        assert "confirm_required" not in types(again), again
        call = next(event for event in again if event["type"] == "tool_call")
        assert call["approved_ahead"] is True
        assert [e["outcome"] for e in again if e["type"] == "tool_result"] == ["ok"]
        assert len(server.applies) == 2
        assert len(server.plans) == plans + 1  # planned afresh, applied by that plan's digest
        assert server.applies[-1]["digest"] == server.plan_of(server.plans[-1])["digest"]

        # Another conversation of the same person asks again.
        other = await agent.conversation()
        fresh = await _turn(agent, other, None)
        assert fresh[-1]["type"] == "confirm_required", fresh
        assert (await agent.decide(other, fresh[-1]["confirmation_id"], "deny")).status_code == 200
    assert len(server.applies) == 2


async def test_similar_is_refused_for_prod_and_for_sql_and_the_card_still_waits(
    make_agent: Any, deploys: tuple[DeployServer, str]
) -> None:
    server, url = deploys
    to_prod = {"dashboard_ids": [10, 11], "target_env_id": "prod"}
    async with make_agent(
        call_tool("execute_migration", to_prod), tools_base_url=url, approvals_prod=1
    ) as agent:
        cid = await agent.conversation()
        card = (await _turn(agent, cid, None, "перенеси дашборды 10 и 11 в prod"))[-1]
        assert card["decision"]["similar"] is False
        refused = await _approve(agent, cid, card, similar=True)
        assert refused.status_code == 422
        assert refused.json()["detail"][0]["loc"] == ["body", "similar"]
        assert "dev" in refused.json()["detail"][0]["msg"]
        assert server.applies == []
        assert (await _approve(agent, cid, card)).status_code == 200  # still waits: as it was
    assert len(server.applies) == 1

    async with make_agent(call_tool("superset_execute_sql", DELETE)) as agent:
        cid, card = await delete_sales_card(agent, env_id="ss-dev")
        assert card["decision"]["stage"] == "dev"
        assert card["decision"]["similar"] is False  # SQL is never approved ahead
        assert (await _approve(agent, cid, card, similar=True)).status_code == 422


async def test_a_call_that_maps_a_database_gets_a_card_even_after_approving_similar_ones(
    make_agent: Any, deploys: tuple[DeployServer, str]
) -> None:
    """«Похожие» cover the tool, environment and kind the person approved, not the connections
    a model may pick: a later call with a database mapping still shows its card."""
    server, url = deploys
    server.target_databases = {"db-target": "Демо-данные", "db-dwh": "Склад DWH"}
    mapped: dict[str, Any] = {**TO_DEV, "database_mapping": {"Демо-данные": "Склад DWH"}}
    calls: Iterator[dict[str, Any]] = iter([TO_DEV, mapped])

    def script(messages: list[Any], offered: list[str]) -> Any:
        if type(messages[-1]).__name__ == "ToolMessage":
            return call_tool("execute_migration")(messages, offered)
        return call_tool("execute_migration", next(calls))(messages, offered)

    async with make_agent(script, tools_base_url=url) as agent:
        cid = await agent.conversation()
        first = await _turn(agent, cid, None)
        assert (await _approve(agent, cid, first[-1], similar=True)).status_code == 200
        ran = await agent.events_after(cid, first[-1])
        again = await _turn(agent, cid, ran[-1]["_id"])
    assert again[-1]["type"] == "confirm_required", again
    assert again[-1]["args"]["database_mapping"] == {"Демо-данные": "Склад DWH"}
    assert len(server.applies) == 1


@pytest.mark.parametrize("ending", ["signed_out", "new_password", "time"])
async def test_an_approval_for_similar_ones_ends_with_its_sign_in_and_after_its_time(
    make_agent: Any, deploys: tuple[DeployServer, str], settings: Settings, ending: str
) -> None:
    """Issue 32 §4: «до конца сеанса» means it — a sign-out everywhere, a new password or
    SSTOOLS_APPROVE_SIMILAR_TTL_S after the approval, and the same call has its card again."""
    server, url = deploys
    async with make_agent(call_tool("execute_migration", TO_DEV), tools_base_url=url) as agent:
        cid = await agent.conversation()
        first = await _turn(agent, cid, None)
        assert (await _approve(agent, cid, first[-1], similar=True)).status_code == 200
        ran = await agent.events_after(cid, first[-1])
        await agent.idle(cid)
        headers = agent.auth(Role.engineer)
        if ending == "signed_out":
            out = await agent.client.post("/api/auth/logout", headers=headers)
            assert out.status_code < 300, out.text
        elif ending == "new_password":
            async with agent.app.state.services.sessions() as session:
                await add_user(session, "engineer", Role.engineer, "a-new-password", upsert=True)
        else:
            later = clock.now() + timedelta(seconds=settings.approve_similar_ttl_s + 1)
            agent.app.state.agent.clock = lambda: later
        if ending != "time":  # signed in again: the account's next token version
            token = issue_token(
                settings, Principal(username="engineer", role=Role.engineer), version=1
            )
            headers = {"Authorization": f"Bearer {token}"}
        sent = await agent.client.post(
            f"/api/agent/conversations/{cid}/messages",
            json={"text": ASKED, "uicontext": dashboard_context(env_id="staging")},
            headers=headers,
        )
        assert sent.status_code == 202, sent.text
        again = await read_events(agent.client, cid, headers, last_event_id=ran[-1]["_id"])
    assert again[-1]["type"] == "confirm_required", again  # asked again, as the first time
    assert len(server.applies) == 1
