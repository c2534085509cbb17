"""«что изменится, если выкатить в prod?» on the real sandbox, no model configured (issue 20 §2).

prod's copy of ss-dev's dashboard 10 is made to differ first, so the plan has something to change.
The question is answered with that plan (read-only, no card) and prod is left exactly as it was:
no task, the write never sent, the call audited as a read.
"""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import func, select

from sstools.agent.texts import tools as tool_texts
from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.storage.models import AuditEntry
from sstools.testing import LiveServer
from tests.conftest import AuthHeaders
from tests.integration.deploy_support import Restore, Superset
from tests.rig import page_context
from tests.support import read_events, types

CONTEXT = page_context("dashboard", "10", "ss-dev", "Отчёт по энергопотреблению")


async def _prod_twin(superset: Superset) -> int:
    """The id in prod of ss-dev's dashboard 10 (matched by UUID)."""
    source = await superset("ss-dev").find_dashboard("id", 10)
    assert source is not None
    found = await superset("prod").find_dashboard("uuid", source[0])
    assert found is not None, "prod lacks ss-dev's dashboard 10: is the sandbox seeded?"
    return found[1].id


async def _css(superset: Superset, dashboard_id: int) -> str:
    body = await superset("prod").get_json(f"/api/v1/dashboard/{dashboard_id}")
    return str(body["result"]["css"] or "")


async def _tool_calls(app: Any, after: int = 0) -> list[dict[str, Any]]:
    """The tool calls audited since entry ``after`` (the log is the whole session's)."""
    async with app.state.services.sessions() as session:
        entries = await session.scalars(
            select(AuditEntry).where(AuditEntry.action == "tool_call", AuditEntry.id > after)
        )
        return [dict(entry.detail) for entry in entries]


async def _last_entry(app: Any) -> int:
    async with app.state.services.sessions() as session:
        return int(await session.scalar(select(func.max(AuditEntry.id))) or 0)


async def test_a_question_about_a_deploy_answers_its_plan_and_leaves_prod_unchanged(
    settings: Settings, auth: AuthHeaders, superset: Superset, restore: Restore
) -> None:
    await restore("prod")
    target = await _prod_twin(superset)
    hotfix = "/* a hotfix made in prod: a dry run must keep it */"
    await superset("prod").put_json(f"/api/v1/dashboard/{target}", {"css": hotfix})
    app = create_app(settings)  # no model configured: the offline planner answers
    headers = auth(Role.engineer)
    with LiveServer(app) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
            tasks_before = (await client.get("/api/tasks", headers=headers)).json()
            audited_before = await _last_entry(app)
            cid = (await client.post("/api/agent/conversations", headers=headers)).json()["id"]
            await client.post(
                f"/api/agent/conversations/{cid}/messages",
                headers=headers,
                json={"text": "что изменится, если выкатить в prod?", "uicontext": CONTEXT},
            )
            events = await read_events(client, cid, headers, timeout_s=120)
            tasks_after = (await client.get("/api/tasks", headers=headers)).json()
        audited = await _tool_calls(app, after=audited_before)
    assert "confirm_required" not in types(events), events
    calls = [event for event in events if event["type"] == "tool_call"]
    assert [(c["tool"], c["args"].get("dry_run")) for c in calls] == [("deploy_dashboard", True)]
    results = [event for event in events if event["type"] == "tool_result"]
    assert [(r["outcome"], r["task_id"]) for r in results] == [("ok", None)], results
    answer = next(event["text"] for event in reversed(events) if event["type"] == "message")
    assert "1 дашборд будет изменён" in answer, answer
    assert tool_texts.DRY_RUN_NOTHING_CHANGED in answer, answer
    # Nothing written: prod keeps its hotfix, no task was started, the call is audited as a read.
    assert await _css(superset, target) == hotfix
    assert [task["id"] for task in tasks_after] == [task["id"] for task in tasks_before]
    deploys = [entry for entry in audited if entry.get("tool") == "deploy_dashboard"]
    assert [(entry["kind"], entry.get("dry_run")) for entry in deploys] == [("read", True)]
