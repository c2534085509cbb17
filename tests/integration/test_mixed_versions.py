"""A fleet in the middle of an upgrade, for real: dev and staging on Superset 6.1.0, prod on 5.0.0.

One scenario, in one test (one worker owns this fleet and stops it after): each environment
reports its release; drift ignores what only a release writes; a deploy dev → prod is fitted
to 5.0.0, lands whole, and a fresh plan afterwards finds nothing to do; content 5.0.0 has no
place for is refused before any write, naming both releases; a backup of prod restores into
staging (older into newer); the deploy's rollback brings prod back exactly.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.config import Settings
from sstools.environments import load_environments
from sstools.git_store import normalise
from sstools.sandbox import Sandbox, SandboxSettings
from sstools.sandbox.seed import DEV_ONLY_DASHBOARD
from sstools.superset import SupersetClient
from tests.conftest import app_client, brought_up, make_settings, seed_users
from tests.integration.deploy_support import started_task, wait_for_task

pytestmark = pytest.mark.integration

PROD_RELEASE = "5.0.0"
SALES = "Продажи по регионам"
EDIT = "/* dev edit for prod on 5.0.0 (test_mixed_versions) */"
# Past the last parallel worker's fleet (tests/conftest.py: worker_fleet).
PORT_OFFSET = 60


@pytest.fixture(scope="module")
def mixed_fleet() -> Iterator[Sandbox]:
    base = int(os.environ.get("SSTOOLS_TEST_SANDBOX_BASE_PORT", SandboxSettings().base_port))
    fleet = Sandbox(
        SandboxSettings(
            fleet=f"mixed-{PROD_RELEASE.replace('.', '-')}",
            base_port=base + PORT_OFFSET,
            versions={"prod": PROD_RELEASE},
        )
    )
    yield from brought_up(fleet, "mixed sandbox")


@pytest.fixture
async def mixed_app(
    mixed_fleet: Sandbox, tmp_path: Path
) -> AsyncIterator[tuple[httpx.AsyncClient, Settings]]:
    settings = make_settings(tmp_path, mixed_fleet.settings.environments_file.resolve())
    await seed_users(settings)
    async with app_client(settings) as client:
        yield client, settings


@pytest.fixture
async def clients(mixed_fleet: Sandbox) -> AsyncIterator[dict[str, SupersetClient]]:
    registry = load_environments(mixed_fleet.settings.environments_file)
    made = {env_id: SupersetClient(registry[env_id], timeout_s=60.0) for env_id in registry}
    yield made
    for client in made.values():
        await client.aclose()


def _as(settings: Settings, role: Role) -> dict[str, str]:
    token = issue_token(settings, Principal(username=role.value, role=role))
    return {"Authorization": f"Bearer {token}"}


async def _id(client: SupersetClient, resource: str, column: str, name: str) -> int:
    rows = await client.list_all(resource, columns=["id", column])
    return next(int(row["id"]) for row in rows if row[column] == name)


async def _plan(api: httpx.AsyncClient, settings: Settings, body: dict[str, Any]) -> Any:
    return await api.post("/api/deploy/plan", json=body, headers=_as(settings, Role.engineer))


async def _run(api: httpx.AsyncClient, settings: Settings, route: str, body: Any) -> Any:
    started = await api.post(route, json=body, headers=_as(settings, Role.engineer))
    return await wait_for_task(
        api, lambda role: _as(settings, role), await started_task(api, settings, started)
    )


async def test_a_fleet_mid_upgrade_deploys_refuses_restores_and_rolls_back_across_releases(
    mixed_app: tuple[httpx.AsyncClient, Settings], clients: dict[str, SupersetClient]
) -> None:
    api, settings = mixed_app
    analyst = _as(settings, Role.analyst)
    dev, prod = clients["ss-dev"], clients["prod"]

    listed = (await api.get("/api/environments", headers=analyst)).json()
    assert {env["id"]: env["superset_version"] for env in listed} == {
        "ss-dev": "6.1.0",
        "staging": "6.1.0",
        "prod": PROD_RELEASE,
    }

    # Seeded alike (prod's copies imported from dev's 6.1.0 export, fitted): no drift that only
    # the releases make.
    checked = await api.post("/api/drift/check", headers=analyst)
    assert checked.status_code == 200, checked.text
    (prod_drift,) = [env for env in checked.json()["environments"] if env["env_id"] == "prod"]
    assert prod_drift["source_env_id"] == "staging"
    assert {row["title"]: row["differs_from_source"] for row in prod_drift["dashboards"]} == {
        row["title"]: False for row in prod_drift["dashboards"]
    }

    sales_dev = await _id(dev, "dashboard", "dashboard_title", SALES)
    draft_dev = await _id(dev, "dashboard", "dashboard_title", DEV_ONLY_DASHBOARD)
    body = {
        "dashboard_ids": [sales_dev, draft_dev],
        "source": {"env_id": "ss-dev"},
        "target_env_id": "prod",
    }
    sales_in_prod = await _id(prod, "dashboard", "dashboard_title", SALES)
    before = normalise(await prod.export_dashboards([sales_in_prod]))
    path = f"/api/v1/dashboard/{sales_dev}"
    await dev.put_json(path, {"css": EDIT})
    try:
        planned = await _plan(api, settings, body)
        assert planned.status_code == 200, planned.text
        plan = planned.json()
        assert (plan["source_release"], plan["target_release"]) == ("6.1.0", PROD_RELEASE)
        assert plan["dashboards_changed"] == 2
        assert "theme_uuid" in {one["field"] for one in plan["translated"]}
        assert f"Для Superset {PROD_RELEASE} из файлов убраны поля" in plan["summary"]

        deployed = await _run(api, settings, "/api/migrations", {**body, "digest": plan["digest"]})
        assert deployed["status"] == "succeeded", deployed
        current = (await prod.get_json(f"/api/v1/dashboard/{sales_in_prod}"))["result"]
        assert current["css"] == EDIT
        again = (await _plan(api, settings, body)).json()
        assert [o["name"] for o in again["objects"] if o["action"] != "unchanged"] == []

        # Content 5.0.0 has no place for: refused before anything is written, both releases named.
        dataset = await _id(dev, "dataset", "table_name", "sales_orders")
        await dev.put_json(f"/api/v1/dataset/{dataset}", {"currency_code_column": "region"})
        prod_datasets = await prod.list_all("dataset", columns=["uuid", "changed_on_utc"])
        refused = await _plan(api, settings, {**body, "dashboard_ids": [sales_dev]})
        await dev.put_json(f"/api/v1/dataset/{dataset}", {"currency_code_column": None})
        assert refused.status_code == 409, refused.text
        words = refused.json()["detail"]
        assert f"Superset {PROD_RELEASE}" in words
        assert "6.1.0" in words
        assert "колонка кода валюты" in words
        assert await prod.list_all("dataset", columns=["uuid", "changed_on_utc"]) == prod_datasets

        # A backup of prod (5.0.0) planned into staging (6.1.0): the same content, nothing to do
        # for the dashboards the deploy did not touch.
        started = await api.post(
            "/api/backups", json={"env_id": "prod"}, headers=_as(settings, Role.admin)
        )
        backup = await wait_for_task(api, lambda role: _as(settings, role), started.json()["id"])
        assert backup["status"] == "succeeded", backup
        assert backup["result"]["superset_version"] == PROD_RELEASE
        restore = await api.post(
            f"/api/backups/{backup['result']['backup_id']}/restore/plan",
            json={"target_env_id": "staging"},
            headers=analyst,
        )
        assert restore.status_code == 200, restore.text
        assert restore.json()["source_release"] == PROD_RELEASE
        changed = {o["name"] for o in restore.json()["dashboards"] if o["action"] != "unchanged"}
        assert changed == {SALES, DEV_ONLY_DASHBOARD}

        rollback = f"/api/deploy/{deployed['id']}/rollback"
        undo = await api.post(
            f"{rollback}/plan", json={"env_id": "prod"}, headers=_as(settings, Role.engineer)
        )
        assert undo.status_code == 200, undo.text
        undone = await _run(
            api, settings, rollback, {"env_id": "prod", "digest": undo.json()["digest"]}
        )
        assert undone["status"] == "succeeded", undone
        assert normalise(await prod.export_dashboards([sales_in_prod])) == before
        draft = next(d["uuid"] for d in plan["dashboards"] if d["name"] == DEV_ONLY_DASHBOARD)
        assert await prod.find_dashboard("uuid", draft) is None
    finally:
        await dev.put_json(path, {"css": ""})
