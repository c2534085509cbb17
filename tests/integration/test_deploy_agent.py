"""Story 2 end to end on the real sandbox: «разверни этот дашборд в prod» from a dashboard page.

The card is destructive and shows the plan's impact, objects and digest; approving applies that
plan as a task the agent follows with ``get_task_status``; denying leaves prod as it was.
"""

from __future__ import annotations

from typing import Any

import httpx
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from sstools.auth.roles import Role
from sstools.config import Settings
from tests.conftest import AuthHeaders
from tests.integration.deploy_support import (
    REPORT,
    REPORT_PAGE,
    Deploys,
    Restore,
    Superset,
    assert_loud_prod_card,
    card_for,
    decided,
    deploy_then_follow,
    followed_to_success,
    live_agent,
    wait_for_task,
)
from tests.support import read_events, start_conversation

PROD_EDIT = "/* a hotfix made in prod */"


async def _ask(client: httpx.AsyncClient, headers: dict[str, str]) -> tuple[str, dict[str, Any]]:
    return await card_for(client, headers, "разверни этот дашборд в prod", REPORT_PAGE)


async def _prod_css(superset: Superset, uuid: str) -> str:
    found = await superset("prod").find_dashboard("uuid", uuid)
    assert found is not None
    body = await superset("prod").get_json(f"/api/v1/dashboard/{found[1].id}")
    return str(body["result"]["css"] or "")


async def _edit_prod(deploys: Deploys) -> dict[str, Any]:
    """A hotfix in prod (put back after the test), so dev's version differs from it; the plan
    dev → prod."""
    _, prod = await deploys.changing("prod")
    client, analyst = deploys.api, deploys.auth(Role.analyst)
    body = {"dashboard_ids": [10], "source": {"env_id": "ss-dev"}, "target_env_id": "prod"}
    first = (await client.post("/api/deploy/plan", json=body, headers=analyst)).json()
    target_id = first["dashboards"][0]["target_id"]
    await prod.put_json(f"/api/v1/dashboard/{target_id}", {"css": PROD_EDIT})
    plan: dict[str, Any] = (
        await client.post("/api/deploy/plan", json=body, headers=analyst)
    ).json()
    return plan


async def test_story2_deploy_to_prod_through_the_agent_applies_the_approved_plan(
    auth: AuthHeaders, deploys: Deploys
) -> None:
    plan = await _edit_prod(deploys)
    assert plan["dashboards_changed"] == 1
    uuid = plan["dashboards"][0]["uuid"]
    headers = auth(Role.engineer)
    # One approval for prod: story 2 as one person approves it (the second approver's part is
    # tests/integration/test_second_approval.py).
    one_approval = deploys.settings.model_copy(update={"approvals_prod": 1})
    async with live_agent(one_approval, deploy_then_follow) as live:
        cid, card = await _ask(live, headers)
        decision = card["decision"]
        assert_loud_prod_card(decision)
        assert decision["impact"] == "1 дашборд будет изменён"
        assert decision["digest"] == plan["digest"]
        assert f"дашборд «{REPORT}»: изменить (css)" in decision["objects"]
        assert await _prod_css(deploys.superset, uuid) == PROD_EDIT  # nothing before the approval

        events = await decided(live, headers, cid, card)

    results = followed_to_success(events, "deploy_dashboard")
    assert results[0]["task_id"]
    assert results[-1]["tool"] == "get_task_status"
    assert PROD_EDIT not in await _prod_css(deploys.superset, uuid)  # dev's version is in prod


async def test_story2_a_denied_deploy_leaves_prod_unchanged(
    client: httpx.AsyncClient,
    auth: AuthHeaders,
    deploys: Deploys,
) -> None:
    plan = await _edit_prod(deploys)
    uuid = plan["dashboards"][0]["uuid"]
    headers = auth(Role.engineer)
    before = (await client.get("/api/tasks?env_id=prod", headers=headers)).json()
    async with live_agent(deploys.settings, deploy_then_follow) as live:
        cid, card = await _ask(live, headers)
        events = await decided(live, headers, cid, card, "deny", timeout_s=20)
        after = (await live.get("/api/tasks?env_id=prod", headers=headers)).json()

    assert [event["type"] for event in events] == ["run_started", "cancelled", "message", "done"]
    assert events[1]["message"].startswith("Операция отменена: вы отклонили «Выкатка дашборда»")
    assert after == before  # no task was started
    assert await _prod_css(deploys.superset, uuid) == PROD_EDIT


def deploy_then_say(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    """Deploy to prod, then say what the tool answered (a model relaying it)."""
    last = messages[-1]
    if isinstance(last, ToolMessage):
        return AIMessage(content=str(last.content))
    call = {"name": "deploy_dashboard", "args": {"target_env_id": "prod"}, "id": "call_deploy"}
    return AIMessage(content="", tool_calls=[call])


async def test_a_deploy_that_would_change_nothing_gets_no_card(
    client: httpx.AsyncClient, auth: AuthHeaders, settings: Settings, restore: Restore
) -> None:
    """Prod already has dev's version: «изменений нет», and nothing to approve or start."""
    await restore("prod")
    headers = auth(Role.engineer)
    body = {"dashboard_ids": [10], "source": {"env_id": "ss-dev"}, "target_env_id": "prod"}
    first = (await client.post("/api/deploy/plan", json=body, headers=headers)).json()
    if first["dashboards_changed"]:  # whatever an earlier test left: make prod dev's copy first
        started = await client.post(
            "/api/deploy", json={**body, "digest": first["digest"]}, headers=headers
        )
        assert (await wait_for_task(client, auth, started.json()["id"]))["status"] == "succeeded"
    plan = (await client.post("/api/deploy/plan", json=body, headers=headers)).json()
    assert plan["dashboards_changed"] == 0, plan["summary"]
    before = (await client.get("/api/tasks?env_id=prod", headers=headers)).json()
    async with live_agent(settings, deploy_then_say) as live:
        cid = await start_conversation(
            live, headers, "что изменится, если выкатить в prod?", REPORT_PAGE
        )
        events = await read_events(live, cid, headers)
    assert "confirm_required" not in [event["type"] for event in events]
    said = [event["text"] for event in events if event["type"] == "message"]
    assert said, events
    assert said[-1].startswith("«Выкатка дашборда»: подтверждать нечего. "), said
    assert said[-1].casefold().count("изменений нет") == 1, said
    assert plan["summary"] in said[-1]
    assert (await client.get("/api/tasks?env_id=prod", headers=headers)).json() == before
