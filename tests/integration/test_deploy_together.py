"""Several dashboards in one deploy, on the real sandbox: they land together, only what the plan
changes is written, and a rollback brings each of them back.

Every test puts the environments it changes back as they were (``restore``).
"""

from __future__ import annotations

from typing import Any

from sstools.auth.roles import Role
from sstools.git_store import normalise
from sstools.sandbox.seed import DEV_ONLY_DASHBOARD
from sstools.superset import SupersetClient
from tests.integration.deploy_support import (
    Deploys,
)

ENGINEER = Role.engineer
SALES, WEATHER, REPORT = "Продажи по регионам", "Погода и нагрузка", "Отчёт по энергопотреблению"


async def _ids(client: SupersetClient, titles: list[str]) -> list[int]:
    rows = await client.list_all("dashboard", columns=["id", "dashboard_title"])
    by_title = {row["dashboard_title"]: int(row["id"]) for row in rows}
    return [by_title[title] for title in titles]


async def _changed_on(client: SupersetClient, resource: str) -> dict[str, Any]:
    column = "changed_on" if resource == "database" else "changed_on_utc"
    rows = await client.list_all(resource, columns=["uuid", column])
    return {str(row["uuid"]): row[column] for row in rows}


async def test_a_migration_lands_every_change_and_rewrites_nothing_the_plan_left_unchanged(
    deploys: Deploys,
) -> None:
    dev, staging = await deploys.changing("staging")
    sales, weather, report = await _ids(staging, [SALES, WEATHER, REPORT])
    for number in (sales, weather):
        await staging.put_json(f"/api/v1/dashboard/{number}", {"css": "/* staging edit */"})
    # One chart of the report edited in staging: the plan changes that chart, not its neighbour.
    report_files = normalise(await staging.export_dashboards([report]))
    edited, kept = sorted(p.split("/")[1][:-5] for p in report_files if p.startswith("charts/"))[:2]
    charts = await staging.list_all("chart", columns=["id", "uuid"])
    edited_id = next(int(row["id"]) for row in charts if row["uuid"] == edited)
    await staging.put_json(f"/api/v1/chart/{edited_id}", {"description": "edited in staging"})
    before = {kind: await _changed_on(staging, kind) for kind in ("chart", "dataset", "database")}

    body = {
        "dashboard_ids": await _ids(dev, [SALES, WEATHER, REPORT]),
        "source": {"env_id": "ss-dev"},
        "target_env_id": "staging",
    }
    planned = await deploys.plan(body)
    assert planned["dashboards_changed"] == 3
    task = await deploys.applied("/api/migrations", {**body, "digest": planned["digest"]})

    assert task["status"] == "succeeded", task
    assert sorted(task["result"]["imported"]) == sorted([SALES, WEATHER, REPORT])
    assert task["result"]["not_imported"] == []
    again = await deploys.plan(body)
    assert again["dashboards_changed"] == 0
    assert {obj["action"] for obj in again["objects"]} == {"unchanged"}
    for number in (sales, weather):
        css = (await staging.get_json(f"/api/v1/dashboard/{number}"))["result"]["css"]
        assert "staging edit" not in (css or "")
    after = {kind: await _changed_on(staging, kind) for kind in ("chart", "dataset", "database")}
    assert after["chart"][edited] != before["chart"][edited]  # written: the plan changed it
    # Not written: the report's other chart, every dataset, the connection.
    assert after["chart"][kept] == before["chart"][kept]
    assert after["dataset"] == before["dataset"]
    assert after["database"] == before["database"]


async def test_rolling_back_a_deploy_of_several_dashboards_restores_each_and_deletes_its_own(
    deploys: Deploys,
) -> None:
    dev, prod = await deploys.changing("prod")
    in_prod = await _ids(prod, [SALES, WEATHER])
    for number in in_prod:
        await prod.put_json(f"/api/v1/dashboard/{number}", {"css": "/* prod hotfix */"})
    before = normalise(await prod.export_dashboards(in_prod))
    body = {
        "dashboard_ids": await _ids(dev, [SALES, WEATHER, DEV_ONLY_DASHBOARD]),
        "source": {"env_id": "ss-dev"},
        "target_env_id": "prod",
    }
    planned = await deploys.plan(body)
    assert planned["dashboards_changed"] == 3
    deployed = await deploys.applied("/api/migrations", {**body, "digest": planned["digest"]})
    assert deployed["status"] == "succeeded", deployed
    assert normalise(await prod.export_dashboards(in_prod)) != before
    draft = next(d["uuid"] for d in planned["dashboards"] if d["name"] == DEV_ONLY_DASHBOARD)
    assert await prod.find_dashboard("uuid", draft) is not None

    rollback = f"/api/deploy/{deployed['id']}/rollback"
    plan = await deploys.rollback_plan(deployed["id"])
    assert plan["dashboards_changed"] == 3
    undone = await deploys.applied(rollback, {"env_id": "prod", "digest": plan["digest"]})

    assert undone["status"] == "succeeded", undone
    assert sorted(undone["result"]["restored"]) == sorted([SALES, WEATHER])
    assert undone["result"]["deleted_dashboards"] == [draft]
    assert normalise(await prod.export_dashboards(in_prod)) == before
    assert await prod.find_dashboard("uuid", draft) is None
