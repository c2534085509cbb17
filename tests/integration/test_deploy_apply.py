"""Deploy and migration on the real sandbox: plan → apply by digest → a durable task → Superset.

Every test puts the environments it changes back as they were (``restore``), because the
sandbox is shared by the whole suite.
"""

from __future__ import annotations

from typing import Any

import httpx

from sstools.auth.roles import Role
from sstools.git_store import normalise
from sstools.sandbox.seed import DEV_ONLY_DASHBOARD, DRIFT_MARKER, DRIFTED_DASHBOARD
from tests.conftest import AuthHeaders
from tests.integration.deploy_support import (
    Deploys,
    started_task,
    superset_dashboard_id,
    wait_for_task,
)

ENGINEER = Role.engineer


async def apply(
    client: httpx.AsyncClient, auth: AuthHeaders, route: str, body: dict[str, Any], digest: str
) -> httpx.Response:
    return await client.post(route, json={**body, "digest": digest}, headers=auth(ENGINEER))


async def test_migration_of_the_dev_only_draft_makes_it_appear_in_staging(deploys: Deploys) -> None:
    dev, staging = await deploys.changing("staging")
    draft = await superset_dashboard_id(dev, DEV_ONLY_DASHBOARD)
    body = {"dashboard_ids": [draft], "source": {"env_id": "ss-dev"}, "target_env_id": "staging"}
    planned = await deploys.plan(body)
    created = {
        (obj["kind"], obj["name"]) for obj in planned["objects"] if obj["action"] == "create"
    }
    assert planned["dashboards_changed"] == 1
    assert ("dashboard", DEV_ONLY_DASHBOARD) in created
    assert not (await staging.search_dashboards(DEV_ONLY_DASHBOARD)).items

    migration = {**body, "digest": planned["digest"]}
    task = await deploys.applied("/api/migrations", migration)

    assert task["status"] == "succeeded", task
    assert task["result"]["imported"] == [DEV_ONLY_DASHBOARD]
    found = await staging.find_dashboard("uuid", planned["dashboards"][0]["uuid"])
    assert found is not None
    assert found[1].title == DEV_ONLY_DASHBOARD
    # The plan counted exactly what appeared: each object it said it creates now exists.
    again = await deploys.plan(body)
    assert again["dashboards_changed"] == 0
    assert {obj["action"] for obj in again["objects"]} == {"unchanged"}


async def test_an_equal_dashboard_plans_unchanged_and_applying_it_changes_nothing(
    deploys: Deploys,
) -> None:
    dev, prod = deploys.superset("ss-dev"), deploys.superset("prod")
    report = await superset_dashboard_id(dev, "Отчёт по энергопотреблению")
    body = {"dashboard_ids": [report], "source": {"env_id": "ss-dev"}, "target_env_id": "prod"}
    planned = await deploys.plan(body)
    assert planned["dashboards_changed"] == 0
    assert {obj["action"] for obj in planned["objects"]} == {"unchanged"}
    before = await prod.find_dashboard("uuid", planned["dashboards"][0]["uuid"])
    assert before is not None

    task = await deploys.applied("/api/deploy", {**body, "digest": planned["digest"]})

    assert task["status"] == "succeeded", task
    assert task["result"]["imported"] == []
    assert task["result"]["unchanged"] == ["Отчёт по энергопотреблению"]
    after = await prod.find_dashboard("uuid", planned["dashboards"][0]["uuid"])
    assert after is not None
    assert after[1].changed_on == before[1].changed_on  # not even touched


async def test_an_edit_in_the_target_after_the_plan_is_refused_with_409_and_nothing_written(
    client: httpx.AsyncClient, auth: AuthHeaders, deploys: Deploys
) -> None:
    dev, staging = await deploys.changing("staging")
    kpis = await superset_dashboard_id(dev, DRIFTED_DASHBOARD)
    body = {"dashboard_ids": [kpis], "source": {"env_id": "ss-dev"}, "target_env_id": "staging"}
    planned = await deploys.plan(body)
    assert planned["dashboards_changed"] == 1
    target_id = planned["dashboards"][0]["target_id"]
    edit = "/* edited in staging after the plan */"
    await staging.put_json(f"/api/v1/dashboard/{target_id}", {"css": edit})

    refused = await apply(client, auth, "/api/deploy", body, planned["digest"])

    assert refused.status_code == 409, refused.text
    assert "цель изменилась после оценки" in refused.json()["detail"]["message"]
    tasks = await client.get("/api/tasks?env_id=staging&status=running", headers=auth(ENGINEER))
    assert tasks.json() == []
    css = (await staging.get_json(f"/api/v1/dashboard/{target_id}"))["result"]["css"]
    assert css == edit  # the person's edit is still there


async def test_deploy_from_a_git_branch_to_prod_then_rollback_restores_the_earlier_export(
    client: httpx.AsyncClient, auth: AuthHeaders, deploys: Deploys
) -> None:
    dev, prod = await deploys.changing("prod")
    kpis = await superset_dashboard_id(dev, DRIFTED_DASHBOARD)
    branch = f"release/kpis-{kpis}"
    made = await client.post("/api/git/branches", json={"name": branch}, headers=auth(ENGINEER))
    assert made.status_code in (201, 409), made.text
    committed = await client.post(
        "/api/git/commits",
        json={"env_id": "ss-dev", "dashboard_ids": [kpis], "message": "KPIs", "branch": branch},
        headers=auth(ENGINEER),
    )
    assert committed.status_code == 200, committed.text
    prod_id = await superset_dashboard_id(prod, DRIFTED_DASHBOARD)
    before = normalise(await prod.export_dashboards([prod_id]))
    assert DRIFT_MARKER not in str(before)

    body = {
        "dashboard_ids": [kpis],
        "source": {"env_id": "ss-dev", "git_ref": branch},
        "target_env_id": "prod",
    }
    planned = await deploys.plan(body)
    dashboard = planned["dashboards"][0]
    assert (dashboard["action"], dashboard["fields"]) == ("update", ["css"])
    deploy = {**body, "digest": planned["digest"]}
    deployed = await deploys.applied("/api/deploy", deploy)

    assert deployed["status"] == "succeeded", deployed
    assert deployed["source"] == f"git:{branch}"
    assert deployed["result"]["snapshot"]["branch"] == f"snapshots/{deployed['id']}"
    css = (await prod.get_json(f"/api/v1/dashboard/{prod_id}"))["result"]["css"]
    assert DRIFT_MARKER in css  # prod changed

    # The rollback is a plan too (from the pinned snapshot commit), applied by its digest.
    undo = await deploys.rollback_plan(deployed["id"])
    assert undo["snapshot_commit"] == deployed["result"]["snapshot"]["commit"]
    rollback = f"/api/deploy/{deployed['id']}/rollback"
    undone = {"env_id": "prod", "digest": undo["digest"]}
    rolled_back = await deploys.applied(rollback, undone)

    assert rolled_back["status"] == "succeeded", rolled_back
    assert normalise(await prod.export_dashboards([prod_id])) == before


async def test_applying_the_plan_just_made_reads_the_target_once_and_never_the_source(
    client: httpx.AsyncClient, auth: AuthHeaders, monkeypatch: Any, deploys: Deploys
) -> None:
    """The plan the person approved is still in hand: applying it checks the target's files
    once (one export, which holds the connection the dashboard's datasets use) instead of
    exporting the source and the target and listing both again."""
    dev, prod = deploys.superset("ss-dev"), deploys.superset("prod")
    report = await superset_dashboard_id(dev, "Отчёт по энергопотреблению")
    body = {"dashboard_ids": [report], "source": {"env_id": "ss-dev"}, "target_env_id": "prod"}
    planned = await deploys.plan(body)
    sent: list[httpx.URL] = []
    original = httpx.AsyncClient.send

    async def counting(self: httpx.AsyncClient, request: httpx.Request, **kwargs: Any) -> Any:
        sent.append(request.url)
        return await original(self, request, **kwargs)

    monkeypatch.setattr(httpx.AsyncClient, "send", counting)
    started = await apply(client, auth, "/api/deploy", body, planned["digest"])
    monkeypatch.undo()
    assert started.status_code == 202, started.text
    await wait_for_task(client, auth, await started_task(client, deploys.settings, started))

    ports = {httpx.URL(dev.env.url).port: "ss-dev", httpx.URL(prod.env.url).port: "prod"}
    to_superset = [(ports[url.port], url.path) for url in sent if url.port in ports]
    # The target's files of the plan's objects, its connection among them: never the source.
    assert sorted(to_superset) == [("prod", "/api/v1/dashboard/export/")]
