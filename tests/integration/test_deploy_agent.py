"""Story 2 end to end on the real sandbox: «разверни этот дашборд в prod» from a dashboard page.

The card is destructive and shows the plan's impact, objects and digest; approving applies that
plan as a task the agent follows with ``get_task_status``; denying leaves prod as it was.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing import LiveServer, ScriptedChatModel
from tests.conftest import AuthHeaders
from tests.integration.deploy_support import Restore, Superset, wait_for_task
from tests.support import read_events

PROD_EDIT = "/* a hotfix made in prod */"
REPORT = "Отчёт по энергопотреблению"
CONTEXT = {
    "contextVersion": 1,
    "objectType": "dashboard",
    "objectId": "10",
    "objectName": REPORT,
    "envId": "ss-dev",
    "route": "/dashboards/10",
}


def deploy_then_follow(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    """Deploy to prod, then ask for the task's status until it has ended (as a model would)."""
    last = messages[-1]
    if not isinstance(last, ToolMessage):
        call = {"name": "deploy_dashboard", "args": {"target_env_id": "prod"}, "id": "call_deploy"}
        return AIMessage(content="", tool_calls=[call])
    result = json.loads(str(last.content))
    task_id = result.get("id")  # the deploy answers with the task record, as does its status
    if result.get("status") in ("succeeded", "failed", "cancelled") or "status" not in result:
        return AIMessage(content=f"Задача завершилась: {result.get('status', result)}")
    time.sleep(0.5)  # a model's own pause between two looks at a task
    call_id = f"call_status_{len(messages)}"
    return AIMessage(
        content="",
        tool_calls=[{"name": "get_task_status", "args": {"task_id": task_id}, "id": call_id}],
    )


@asynccontextmanager
async def agent(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, chat_model=ScriptedChatModel(script=deploy_then_follow))
    with LiveServer(app) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
            yield client


async def _say(
    client: httpx.AsyncClient, headers: dict[str, str], text: str
) -> tuple[str, list[dict[str, Any]]]:
    """A new conversation on the dashboard page, ``text`` sent: its id and the events."""
    cid = (await client.post("/api/agent/conversations", headers=headers)).json()["id"]
    await client.post(
        f"/api/agent/conversations/{cid}/messages",
        headers=headers,
        json={"text": text, "uicontext": CONTEXT},
    )
    return cid, await read_events(client, cid, headers)


async def _ask(client: httpx.AsyncClient, headers: dict[str, str]) -> tuple[str, dict[str, Any]]:
    cid, events = await _say(client, headers, "разверни этот дашборд в prod")
    card = events[-1]
    assert card["type"] == "confirm_required", events
    return cid, card


async def _prod_css(superset: Superset, uuid: str) -> str:
    found = await superset("prod").find_dashboard("uuid", uuid)
    assert found is not None
    body = await superset("prod").get_json(f"/api/v1/dashboard/{found[1].id}")
    return str(body["result"]["css"] or "")


async def _edit_prod(
    client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset
) -> dict[str, Any]:
    """A hotfix in prod, so dev's version differs from it; the plan dev → prod."""
    body = {"dashboard_ids": [10], "source": {"env_id": "ss-dev"}, "target_env_id": "prod"}
    first = (await client.post("/api/deploy/plan", json=body, headers=auth(Role.analyst))).json()
    target_id = first["dashboards"][0]["target_id"]
    await superset("prod").put_json(f"/api/v1/dashboard/{target_id}", {"css": PROD_EDIT})
    plan: dict[str, Any] = (
        await client.post("/api/deploy/plan", json=body, headers=auth(Role.analyst))
    ).json()
    return plan


async def test_story2_deploy_to_prod_through_the_agent_applies_the_approved_plan(
    client: httpx.AsyncClient,
    auth: AuthHeaders,
    settings: Settings,
    superset: Superset,
    restore: Restore,
) -> None:
    await restore("prod")
    plan = await _edit_prod(client, auth, superset)
    assert plan["dashboards_changed"] == 1
    uuid = plan["dashboards"][0]["uuid"]
    headers = auth(Role.engineer)
    # One approval for prod: story 2 as one person approves it (the second approver's part is
    # tests/integration/test_second_approval.py).
    async with agent(settings.model_copy(update={"approvals_prod": 1})) as live:
        cid, card = await _ask(live, headers)
        decision = card["decision"]
        assert (decision["level"], decision["tone"], decision["stage"]) == (
            "dangerous",
            "destructive",
            "prod",
        )
        assert "ПРОДУКТИВ" in decision["prompt"]
        assert decision["impact"] == "1 дашборд будет изменён"
        assert decision["digest"] == plan["digest"]
        assert f"дашборд «{REPORT}»: изменить (css)" in decision["objects"]
        assert await _prod_css(superset, uuid) == PROD_EDIT  # nothing before the approval

        approved = await live.post(
            f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}",
            json={"decision": "approve"},
            headers=headers,
        )
        assert approved.status_code == 200, approved.text
        events = await read_events(live, cid, headers, last_event_id=card["_id"], timeout_s=120)

    results = [event for event in events if event["type"] == "tool_result"]
    assert results[0]["tool"] == "deploy_dashboard"
    assert results[0]["outcome"] == "ok"
    assert results[0]["task_id"]
    assert results[-1]["tool"] == "get_task_status"
    assert "Задача завершилась: succeeded" in events[-2]["text"]
    assert PROD_EDIT not in await _prod_css(superset, uuid)  # dev's version is in prod


async def test_story2_a_denied_deploy_leaves_prod_unchanged(
    client: httpx.AsyncClient,
    auth: AuthHeaders,
    settings: Settings,
    superset: Superset,
    restore: Restore,
) -> None:
    await restore("prod")
    plan = await _edit_prod(client, auth, superset)
    uuid = plan["dashboards"][0]["uuid"]
    headers = auth(Role.engineer)
    before = (await client.get("/api/tasks?env_id=prod", headers=headers)).json()
    async with agent(settings) as live:
        cid, card = await _ask(live, headers)
        denied = await live.post(
            f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}",
            json={"decision": "deny"},
            headers=headers,
        )
        assert denied.status_code == 200
        events = await read_events(live, cid, headers, last_event_id=card["_id"])
        after = (await live.get("/api/tasks?env_id=prod", headers=headers)).json()

    assert [event["type"] for event in events] == ["run_started", "cancelled", "message", "done"]
    assert events[1]["message"].startswith("Операция отменена: вы отклонили «Выкатка дашборда»")
    assert after == before  # no task was started
    assert await _prod_css(superset, uuid) == PROD_EDIT


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
    app = create_app(settings, chat_model=ScriptedChatModel(script=deploy_then_say))
    with LiveServer(app) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as live:
            _, events = await _say(live, headers, "что изменится, если выкатить в prod?")
    assert "confirm_required" not in [event["type"] for event in events]
    said = [event["text"] for event in events if event["type"] == "message"]
    assert said, events
    assert said[-1].startswith("«Выкатка дашборда»: подтверждать нечего. "), said
    assert said[-1].casefold().count("изменений нет") == 1, said
    assert plan["summary"] in said[-1]
    assert (await client.get("/api/tasks?env_id=prod", headers=headers)).json() == before
