"""A second approver for prod on the real sandbox: «разверни этот дашборд в prod» approved by its
requester alone changes nothing in prod; a second engineer's approval (of a few racing ones)
applies it once; the requester approving again, an analyst, or an approval after prod moved
writes nothing, and says so. Prod is put back exactly after each test (its CSS raw, null stays
null).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from sqlalchemy import select

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.http.auth import SESSION_COOKIE
from sstools.storage.models import AuditEntry, Confirmation
from sstools.testing import LiveServer, ScriptedChatModel
from tests.conftest import AuthHeaders, second_engineer
from tests.integration.deploy_support import (
    REPORT,
    REPORT_PAGE,
    Superset,
    card_for,
    deploy_then_follow,
    kept_as_it_was,
)
from tests.support import read_events

PROD_EDIT = "/* a hotfix made in prod */"
MOVED = "/* prod edited again while the request waited */"


async def _prod_id(client: httpx.AsyncClient, auth: AuthHeaders) -> int:
    body = {"dashboard_ids": [10], "source": {"env_id": "ss-dev"}, "target_env_id": "prod"}
    plan = (await client.post("/api/deploy/plan", json=body, headers=auth(Role.analyst))).json()
    return int(plan["dashboards"][0]["target_id"])


async def _css(superset: Superset, dashboard_id: int) -> str | None:
    body = await superset("prod").get_json(f"/api/v1/dashboard/{dashboard_id}")
    css: str | None = body["result"].get("css")
    return css


@asynccontextmanager
async def agent(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, Any]]:
    app = create_app(settings, chat_model=ScriptedChatModel(script=deploy_then_follow))
    with LiveServer(app) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
            yield client, app


async def _requested(
    live: httpx.AsyncClient, headers: dict[str, str]
) -> tuple[str, dict[str, Any]]:
    """The requester asks for the deploy and approves its card: (conversation, card)."""
    cid, card = await card_for(live, headers, "разверни этот дашборд в prod", REPORT_PAGE)
    first = await live.post(
        f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}",
        json={"decision": "approve"},
        headers=headers,
    )
    assert first.json() == {"status": "awaiting_second", "run_id": None}, first.text
    return cid, card


async def _prod_tasks(live: httpx.AsyncClient, headers: dict[str, str]) -> list[str]:
    """Prod's deploy tasks, as «id started_by»."""
    tasks = (await live.get("/api/tasks?env_id=prod&kind=deploy", headers=headers)).json()
    return sorted(f"{task['id']} {task['started_by']}" for task in tasks)


async def test_a_prod_deploy_applies_once_only_when_a_second_engineer_approves(
    client: httpx.AsyncClient, auth: AuthHeaders, settings: Settings, superset: Superset
) -> None:
    prod_id = await _prod_id(client, auth)
    headers = auth(Role.engineer)
    async with kept_as_it_was(superset, "prod", prod_id) as prod, agent(settings) as (live, app):
        await prod.put_json(f"/api/v1/dashboard/{prod_id}", {"css": PROD_EDIT})
        second = await second_engineer(settings)
        before = await _prod_tasks(live, headers)
        cid, card = await _requested(live, headers)
        url = f"/api/approvals/{card['confirmation_id']}"
        await asyncio.sleep(1)  # had the requester's approval started anything, it would show
        assert await _css(superset, prod_id) == PROD_EDIT  # prod as it was: nothing ran
        assert await _prod_tasks(live, headers) == before
        again = await live.post(
            f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}",
            json={"decision": "approve"},
            headers=headers,
        )
        own = await live.post(url, json={"decision": "approve"}, headers=headers)
        analyst = await live.post(url, json={"decision": "approve"}, headers=auth(Role.analyst))
        assert (again.status_code, own.status_code, analyst.status_code) == (409, 409, 403)
        assert "другой человек" in own.json()["detail"]
        assert await _css(superset, prod_id) == PROD_EDIT
        shown = (await live.get(url, headers=second)).json()
        assert (shown["status"], shown["requested_by"], shown["can_approve"]) == (
            "awaiting_second",
            "engineer",
            True,
        )
        assert shown["digest"] == card["decision"]["digest"]
        assert f"дашборд «{REPORT}»: изменить (css)" in shown["objects"]
        racing = [second, second, auth(Role.admin)]
        responses = await asyncio.gather(
            *(live.post(url, json={"decision": "approve"}, headers=h) for h in racing)
        )
        events = await read_events(live, cid, headers, last_event_id=card["_id"], timeout_s=180)
        after = await _prod_tasks(live, headers)
        applied = await _css(superset, prod_id)
        token = second["Authorization"].removeprefix("Bearer ")
        page = await live.get(
            f"/approvals/{card['confirmation_id']}",
            headers={"Cookie": f"{SESSION_COOKIE}={token}"},
        )
        async with app.state.services.sessions() as session:
            audit = list(
                await session.scalars(
                    select(AuditEntry).where(AuditEntry.action == "approval_decided")
                )
            )
            row = await session.get(Confirmation, card["confirmation_id"])
            assert row is not None
    assert sorted(r.status_code for r in responses) == [200, 409, 409], [r.text for r in responses]
    # One deploy task, of three racing approvals, run as the requester asked it.
    [started_task] = set(after) - set(before)
    assert started_task.split()[1] == "engineer"
    # The approver's page follows the write to its task.
    assert "изменение запущено задачей" in page.text
    assert f'href="/tasks/{started_task.split()[0]}"' in page.text
    assert applied != PROD_EDIT  # dev's version is in prod
    waiting = next(e for e in events if e["type"] == "approval_waiting")
    assert (waiting["by"], waiting["approver_role"]) == ("engineer", "engineer")
    started = [e["decided"] for e in events if e["type"] == "run_started" and e["decided"]]
    assert [(d["status"], d["first_by"]) for d in started] == [("approved", "engineer")]
    assert any("Задача завершилась: succeeded" in e.get("text", "") for e in events), events
    mine = [e for e in audit if e.detail.get("confirmation_id") == card["confirmation_id"]]
    assert [(e.username, e.detail["requested_by"], e.outcome) for e in mine] == [
        (started[0]["by"], "engineer", "approved")
    ]
    assert (row.status, row.first_approved_by, row.second_by) == (
        "approved",
        "engineer",
        started[0]["by"],
    )


async def test_a_second_approval_after_prod_moved_writes_nothing_and_says_so(
    client: httpx.AsyncClient, auth: AuthHeaders, settings: Settings, superset: Superset
) -> None:
    prod_id = await _prod_id(client, auth)
    headers = auth(Role.engineer)
    async with kept_as_it_was(superset, "prod", prod_id) as prod, agent(settings) as (live, _):
        await prod.put_json(f"/api/v1/dashboard/{prod_id}", {"css": PROD_EDIT})
        second = await second_engineer(settings)
        before = await _prod_tasks(live, headers)
        cid, card = await _requested(live, headers)
        # Someone edits the prod dashboard while the request waits: the approved plan is stale.
        await prod.put_json(f"/api/v1/dashboard/{prod_id}", {"css": MOVED})
        url = f"/api/approvals/{card['confirmation_id']}"
        moved = await live.post(url, json={"decision": "approve"}, headers=second)
        events = await read_events(live, cid, headers, last_event_id=card["_id"])
        shown = (await live.get(url, headers=second)).json()
        late = await live.post(url, json={"decision": "approve"}, headers=second)
        after = await _prod_tasks(live, headers)
        css = await _css(superset, prod_id)
    assert moved.status_code == 409
    assert moved.json()["detail"].startswith("цель изменилась с момента запроса")
    assert css == MOVED  # nothing written
    assert after == before
    assert shown["status"] == "target_moved"
    assert late.status_code == 409
    started = [e["decided"] for e in events if e["type"] == "run_started" and e["decided"]]
    assert [d["status"] for d in started] == ["target_moved"]
    cancelled = next(e for e in events if e["type"] == "cancelled")
    assert "цель изменилась" in cancelled["message"]
