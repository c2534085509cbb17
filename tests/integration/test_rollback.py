"""Issue 18, item 3: a prod rollback restores exactly the snapshot its deploy took, by a plan.

Real sandbox, real repository. Engineer A deploys «Energy KPIs» to prod (a snapshot is taken);
engineer B may neither write the snapshot branch nor roll A's deploy back; a snapshot branch
moved behind sstools' back (straight through dulwich) changes nothing: the rollback plans from
the commit pinned in the task's result. Prod is put back afterwards (``restore``).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import yaml

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.git_store import normalise
from sstools.git_store._repo import Repository
from sstools.sandbox.seed import DEV_ONLY_DASHBOARD, DRIFT_MARKER, DRIFTED_DASHBOARD
from tests.conftest import AuthHeaders, second_engineer
from tests.integration.deploy_support import (
    Deploys,
    call_then_follow,
    card_for,
    decided,
    followed_to_success,
    live_agent,
    superset_dashboard_id,
)

ENGINEER = Role.engineer
TAMPERED = "TAMPERED by eng2"
GENERAL_PROD = {"contextVersion": 1, "envId": "prod"}


@pytest.fixture
async def engineer_b(settings: Settings) -> dict[str, str]:
    """A second engineer's headers (the suite seeds one user per role)."""
    return await second_engineer(settings)


async def _deploy_kpis_to_prod(deploys: Deploys) -> tuple[dict[str, Any], int, dict[str, bytes]]:
    """Engineer A's finished deploy, prod's dashboard id, and prod's export from before it
    (prod is put back after the test)."""
    dev, prod = await deploys.changing("prod")
    kpis = await superset_dashboard_id(dev, DRIFTED_DASHBOARD)
    prod_id = await superset_dashboard_id(prod, DRIFTED_DASHBOARD)
    before = normalise(await prod.export_dashboards([prod_id]))
    body = {"dashboard_ids": [kpis], "source": {"env_id": "ss-dev"}, "target_env_id": "prod"}
    planned = await deploys.plan(body)
    deploy = {**body, "digest": planned["digest"]}
    deployed = await deploys.applied("/api/deploy", deploy)
    assert deployed["status"] == "succeeded", deployed
    css = (await prod.get_json(f"/api/v1/dashboard/{prod_id}"))["result"]["css"]
    assert DRIFT_MARKER in css  # prod changed
    return deployed, prod_id, before


async def _rollbacks_of(
    client: httpx.AsyncClient, auth: AuthHeaders, deploy_task_id: str
) -> list[str]:
    """The rollback tasks started for that deploy (their source names its snapshot branch)."""
    rows = (await client.get("/api/tasks?env_id=prod", headers=auth(ENGINEER))).json()
    return [
        row["id"]
        for row in rows
        if row["kind"] == "rollback" and f"snapshots/{deploy_task_id}" in (row["source"] or "")
    ]


async def test_a_tampered_snapshot_branch_does_not_reach_prod_on_rollback(
    client: httpx.AsyncClient, auth: AuthHeaders, engineer_b: dict[str, str], deploys: Deploys
) -> None:
    deployed, prod_id, before = await _deploy_kpis_to_prod(deploys)
    snapshot = deployed["result"]["snapshot"]
    branch = f"snapshots/{deployed['id']}"
    assert snapshot["branch"] == branch
    pinned = snapshot["commit"]
    assert isinstance(pinned, str)
    assert len(pinned) == 40
    (dashboard_uuid,) = snapshot["dashboards"]

    # Engineer B cannot write the snapshot branch through the API, nor make one.
    committed = await client.post(
        "/api/git/commits",
        json={"env_id": "ss-dev", "dashboard_ids": [1], "message": TAMPERED, "branch": branch},
        headers=engineer_b,
    )
    assert committed.status_code == 422, committed.text
    (error,) = committed.json()["detail"]
    assert error["loc"] == ["body", "branch"]
    assert "snapshots/" in error["msg"]
    assert "only sstools writes them" in error["msg"]
    made = await client.post(
        "/api/git/branches", json={"name": f"snapshots/{'0' * 32}"}, headers=engineer_b
    )
    assert made.status_code == 422, made.text
    assert made.json()["detail"][0]["loc"] == ["body", "name"]

    # ...but the branch can still move behind sstools' back: straight through dulwich.
    repository = Repository(deploys.settings.git_dir)
    path = f"dashboards/{dashboard_uuid}.yaml"
    _, held = repository.read(branch, [path])
    document = yaml.safe_load(held[path])
    document["dashboard_title"] = TAMPERED
    moved, _ = repository.commit(
        branch, {path: yaml.safe_dump(document).encode()}, TAMPERED, "eng2 <eng2@x>"
    )
    assert moved is not None
    assert moved.id != pinned

    # The plan is the pinned commit's: the tampered title is nowhere in it.
    plan = await deploys.rollback_plan(deployed["id"])
    assert plan["snapshot_commit"] == pinned
    assert plan["deployed_by"] == "engineer"
    assert "запустил engineer" in plan["summary"]
    assert TAMPERED not in str(plan)
    assert plan["dashboards_changed"] == 1
    assert [(d["name"], d["action"]) for d in plan["dashboards"]] == [(DRIFTED_DASHBOARD, "update")]

    # Engineer B may look but not roll A's deploy back; the refusal names the owner.
    refused = await client.post(
        f"/api/deploy/{deployed['id']}/rollback",
        json={"env_id": "prod", "digest": plan["digest"]},
        headers=engineer_b,
    )
    assert refused.status_code == 403, refused.text
    assert "запустил engineer" in refused.json()["detail"]
    assert await _rollbacks_of(client, auth, deployed["id"]) == []

    undo = {"env_id": "prod", "digest": plan["digest"]}
    rollback = f"/api/deploy/{deployed['id']}/rollback"
    rolled_back = await deploys.applied(rollback, undo)

    assert rolled_back["status"] == "succeeded", rolled_back
    assert rolled_back["result"]["snapshot_commit"] == pinned
    again = await client.post(
        f"/api/deploy/{rolled_back['id']}/rollback/plan",
        json={"env_id": "prod"},
        headers=auth(ENGINEER),
    )
    assert again.status_code == 409, again.text  # a rollback is not itself rolled back
    title = (await deploys.superset("prod").get_json(f"/api/v1/dashboard/{prod_id}"))["result"]
    assert title["dashboard_title"] == DRIFTED_DASHBOARD
    assert normalise(await deploys.superset("prod").export_dashboards([prod_id])) == before


async def test_a_rollback_applies_only_the_plan_it_was_shown(
    client: httpx.AsyncClient, auth: AuthHeaders, deploys: Deploys
) -> None:
    deployed, prod_id, _ = await _deploy_kpis_to_prod(deploys)
    route = f"/api/deploy/{deployed['id']}/rollback"
    plan = await deploys.rollback_plan(deployed["id"])
    again = await deploys.rollback_plan(deployed["id"])
    assert again["digest"] == plan["digest"]  # stable while neither side moves
    elsewhere = await client.post(
        f"{route}/plan", json={"env_id": "staging"}, headers=auth(ENGINEER)
    )
    assert elsewhere.status_code == 422, elsewhere.text
    assert elsewhere.json()["detail"][0]["loc"] == ["body", "env_id"]
    unknown = await client.post(
        f"/api/deploy/{'f' * 32}/rollback/plan", json={"env_id": "prod"}, headers=auth(ENGINEER)
    )
    assert unknown.status_code == 404, unknown.text

    missing = await client.post(route, json={"env_id": "prod"}, headers=auth(ENGINEER))
    assert missing.status_code == 422, missing.text
    assert missing.json()["detail"][0]["loc"] == ["body", "digest"]
    wrong = await client.post(
        route, json={"env_id": "prod", "digest": "0" * 64}, headers=auth(ENGINEER)
    )
    assert wrong.status_code == 409, wrong.text
    assert wrong.json()["detail"]["current_digest"] == plan["digest"]

    # Prod moves after the plan: the approved digest no longer applies.
    edit = "/* edited in prod after the rollback plan */"
    await deploys.superset("prod").put_json(f"/api/v1/dashboard/{prod_id}", {"css": edit})
    stale = await client.post(
        route, json={"env_id": "prod", "digest": plan["digest"]}, headers=auth(ENGINEER)
    )
    assert stale.status_code == 409, stale.text
    assert "оцените откат заново" in stale.json()["detail"]["message"]
    assert stale.json()["detail"]["current_digest"] != plan["digest"]

    assert (
        await _rollbacks_of(client, auth, deployed["id"]) == []
    )  # nothing started, nothing written
    css = (await deploys.superset("prod").get_json(f"/api/v1/dashboard/{prod_id}"))["result"]["css"]
    assert css == edit


async def test_branch_names_starting_refs_are_refused_naming_the_field(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    made = await client.post(
        "/api/git/branches", json={"name": "refs/heads/x"}, headers=auth(ENGINEER)
    )
    assert made.status_code == 422, made.text
    (error,) = made.json()["detail"]
    assert error["loc"] == ["body", "name"]
    assert "must not start with 'refs/'" in error["msg"]
    listed = (await client.get("/api/git/branches", headers=auth(ENGINEER))).json()
    assert not any(branch["name"].startswith("refs/") for branch in listed)


async def test_a_restore_needs_the_digest_of_its_plan(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    route = "/api/backups/ss-dev.20261130T051038123456Z/restore"
    for body in ({"target_env_id": "staging"}, {"target_env_id": "staging", "digest": ""}):
        started = await client.post(route, json=body, headers=auth(Role.admin))
        assert started.status_code == 422, started.text
        (error,) = started.json()["detail"]
        assert error["loc"] == ["body", "digest"]
    assert "restore/plan" in error["msg"]  # the empty one says where a digest comes from


async def test_the_rollback_card_shows_its_plan_and_approving_applies_it(
    auth: AuthHeaders, deploys: Deploys
) -> None:
    deployed, prod_id, before = await _deploy_kpis_to_prod(deploys)
    prod = deploys.superset("prod")
    plan = await deploys.rollback_plan(deployed["id"])
    headers = auth(ENGINEER)
    # One approval for prod: this test is about the rollback card (a second approver's part is
    # tests/integration/test_second_approval.py).
    one_approval = deploys.settings.model_copy(update={"approvals_prod": 1})
    script = call_then_follow("rollback_deploy", {"task_id": deployed["id"], "env_id": "prod"})
    async with live_agent(one_approval, script) as live:
        cid, card = await card_for(live, headers, "откати выкатку", GENERAL_PROD)
        decision = card["decision"]
        assert (decision["level"], decision["stage"]) == ("dangerous", "prod")
        assert decision["impact"] == "1 дашборд будет изменён"
        assert decision["digest"] == plan["digest"]
        assert decision["objects"] == [f"дашборд «{DRIFTED_DASHBOARD}»: изменить (css)"]
        css = (await prod.get_json(f"/api/v1/dashboard/{prod_id}"))["result"]["css"]
        assert DRIFT_MARKER in css  # nothing before the approval

        events = await decided(live, headers, cid, card)

    followed_to_success(events, "rollback_deploy")
    assert normalise(await prod.export_dashboards([prod_id])) == before


async def test_what_a_deploy_created_is_planned_as_delete_and_rolled_back_away(
    deploys: Deploys,
) -> None:
    dev, prod = await deploys.changing("prod")
    draft = await superset_dashboard_id(dev, DEV_ONLY_DASHBOARD)
    body = {"dashboard_ids": [draft], "source": {"env_id": "ss-dev"}, "target_env_id": "prod"}
    planned = await deploys.plan(body)
    deploy = {**body, "digest": planned["digest"]}
    deployed = await deploys.applied("/api/deploy", deploy)
    assert deployed["status"] == "succeeded", deployed
    uuid = planned["dashboards"][0]["uuid"]
    assert await prod.find_dashboard("uuid", uuid) is not None

    plan = await deploys.rollback_plan(deployed["id"])
    assert "будут удалены созданные ею: 1 дашборд" in plan["summary"]
    assert plan["dashboards_changed"] == 1
    deleted = [(o["kind"], o["name"]) for o in plan["objects"] if o["action"] == "delete"]
    assert ("dashboard", DEV_ONLY_DASHBOARD) in deleted
    undo = {"env_id": "prod", "digest": plan["digest"]}
    rollback = f"/api/deploy/{deployed['id']}/rollback"
    rolled_back = await deploys.applied(rollback, undo)
    assert rolled_back["status"] == "succeeded", rolled_back
    assert rolled_back["result"]["deleted_dashboards"] == [uuid]
    assert await prod.find_dashboard("uuid", uuid) is None
