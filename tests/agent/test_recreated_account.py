"""A username removed and added again is another person (issue 32 §3): the new account sees none
of the old one's conversations and cannot act on its waiting request, which runs in nobody's
name; over real HTTP on a fake Superset."""

from __future__ import annotations

from typing import Any

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import add_user, remove_user
from sstools.config import Settings
from sstools.testing import call_tool
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.cards import DELETE
from tests.agent.conftest import dataset_context
from tests.support import read_events


def _headers(settings: Settings, username: str, role: Role = Role.engineer) -> dict[str, str]:
    return {
        "Authorization": f"Bearer {issue_token(settings, Principal(username=username, role=role))}"
    }


async def test_a_recreated_account_owns_nothing_of_the_removed_one(
    make_agent: Any, fake_superset: FakeSuperset, settings: Settings
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE), approvals_prod=2) as agent:
        sessions = agent.app.state.services.sessions
        async with sessions() as session:
            await add_user(session, "engineer2", Role.engineer, "engineer2-test-password")
        old = _headers(settings, "engineer")
        cid = (await agent.client.post("/api/agent/conversations", headers=old)).json()["id"]
        await agent.client.post(
            f"/api/agent/conversations/{cid}/messages",
            json={"text": "удали продажи", "uicontext": dataset_context(env_id="prod")},
            headers=old,
        )
        card = (await read_events(agent.client, cid, old))[-1]
        assert card["type"] == "confirm_required", card
        first = await agent.client.post(
            f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}",
            json={"decision": "approve"},
            headers=old,
        )
        assert first.json()["status"] == "awaiting_second"

        # The account goes; someone else is given the same name.
        async with sessions() as session:
            assert await remove_user(session, "engineer")
            await add_user(session, "engineer", Role.engineer, "a-new-persons-password")
        new = _headers(settings, "engineer")
        request = f"/api/approvals/{card['confirmation_id']}"
        conversation = f"/api/agent/conversations/{cid}"
        seen = {
            "history": await agent.client.get(conversation, headers=new),
            # Bounded: were it theirs, the stream would stay open.
            "events": await agent.client.get(f"{conversation}/events", headers=new, timeout=10),
            "message": await agent.client.post(
                f"{conversation}/messages", json={"text": "привет", "uicontext": None}, headers=new
            ),
            "card": await agent.client.post(
                f"{conversation}/confirmations/{card['confirmation_id']}",
                json={"decision": "deny"},
                headers=new,
            ),
        }
        listed = (await agent.client.get("/api/approvals", headers=new)).json()
        withdrawn = await agent.client.post(request, json={"decision": "deny"}, headers=new)
        approved = await agent.client.post(request, json={"decision": "approve"}, headers=new)
        second = await agent.client.post(
            request, json={"decision": "approve"}, headers=_headers(settings, "engineer2")
        )
        shown = (await agent.client.get(request, headers=new)).json()
    assert {name: answer.status_code for name, answer in seen.items()} == dict.fromkeys(seen, 404)
    assert listed == {"approvals": [], "can_approve": 0}
    assert withdrawn.status_code == 403
    assert "прежняя, удалённая учётная запись" in withdrawn.json()["detail"]
    assert approved.status_code == 403
    assert second.status_code == 409  # never run in the new account's name
    assert "учётной записи того, кто сделал запрос, больше нет" in second.json()["detail"]
    assert (shown["status"], shown["can_approve"]) == ("awaiting_second", False)
    assert fake_superset.executed_sql == []
