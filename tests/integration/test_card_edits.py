"""An edited card on the real sandbox (issue 25 §2): the model proposes two dashboards to prod, the
person unticks one and sends the other to staging; the server plans that again, and approving
the new card applies exactly the edited plan — the unticked dashboard keeps staging's copy, and
prod is not touched."""

from __future__ import annotations

import httpx

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing import call_tool
from tests.browser.conftest import drift, twin
from tests.conftest import AuthHeaders
from tests.integration.deploy_support import (
    Restore,
    Superset,
    card_for,
    decided,
    live_agent,
    wait_for_task,
)
from tests.support import read_events

OTHER = "Продажи по регионам"


async def _css(superset: Superset, env_id: str, dashboard_id: int) -> str:
    body = await superset(env_id).get_json(f"/api/v1/dashboard/{dashboard_id}")
    return str(body["result"]["css"] or "")


async def test_an_edited_card_applies_exactly_the_edited_plan(
    client: httpx.AsyncClient,
    auth: AuthHeaders,
    settings: Settings,
    superset: Superset,
    restore: Restore,
) -> None:
    await restore("staging")
    await restore("prod")
    query = {
        "columns": ["id", "uuid"],
        "filters": [{"col": "dashboard_title", "opr": "eq", "value": OTHER}],
    }
    row = (await superset("ss-dev").get_json("/api/v1/dashboard/", query=query))["result"][0]
    other_dev = int(row["id"])
    report = {env: (await twin(superset, env))[1] for env in ("staging", "prod")}
    others = {}
    for env_id in ("staging", "prod"):  # both differ from dev on both dashboards
        found = await superset(env_id).find_dashboard("uuid", str(row["uuid"]))
        assert found is not None
        others[env_id] = found[1].id
        hotfix = await drift(superset, env_id)
        await superset(env_id).put_json(f"/api/v1/dashboard/{others[env_id]}", {"css": hotfix})
    hotfix = "/* a hotfix made in staging */"  # what drift() writes there
    prod_before = (await client.get("/api/tasks?env_id=prod", headers=auth(Role.analyst))).json()

    proposal = {"dashboard_ids": [10, other_dev], "target_env_id": "prod"}
    script = call_tool("execute_migration", proposal, text="Готово.")
    headers = auth(Role.engineer)
    text = f"перенеси дашборды 10 и {other_dev} в prod"
    page = {
        "contextVersion": 1,
        "objectType": "dashboard",
        "objectId": "10",
        "envId": "ss-dev",
        "route": "/dashboards/10",
    }
    async with live_agent(settings, script) as live:
        cid, card = await card_for(live, headers, text, page, timeout_s=60)
        assert card["decision"]["impact"] == "2 дашборда будут изменены"

        edited = await live.post(
            f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}",
            json={
                "decision": "edit",
                "args": {"dashboard_ids": ["10"], "target_env_id": "staging"},
            },
            headers=headers,
        )
        assert edited.status_code == 200, edited.text
        events = await read_events(live, cid, headers, last_event_id=card["_id"], timeout_s=60)
        new = events[-1]
        assert new["type"] == "confirm_required", events
        assert new["decision"]["stage"] == "staging"
        assert new["decision"]["impact"] == "1 дашборд будет изменён"
        assert new["decision"]["digest"] != card["decision"]["digest"]

        ran = await decided(live, headers, cid, new)
    started = next(event for event in ran if event["type"] == "tool_result")
    assert started["outcome"] == "ok", ran
    task = await wait_for_task(client, auth, started["task_id"])
    assert task["status"] == "succeeded", task
    assert task["env_id"] == "staging"

    assert hotfix not in await _css(superset, "staging", report["staging"])  # dev's copy now
    assert await _css(superset, "staging", others["staging"]) == hotfix  # unticked: kept
    assert await _css(superset, "prod", report["prod"]) == "/* a hotfix made in prod */"
    prod_after = (await client.get("/api/tasks?env_id=prod", headers=auth(Role.analyst))).json()
    assert prod_after == prod_before
