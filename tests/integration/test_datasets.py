"""Datasets on the real sandbox: dependencies, databases drill-down, review status."""

from __future__ import annotations

import httpx

from sstools.auth.roles import Role
from tests.conftest import AuthHeaders


async def _dataset_id(
    client: httpx.AsyncClient, auth: AuthHeaders, name: str, env_id: str = "staging"
) -> int:
    response = await client.get(
        "/api/datasets", params={"env_id": env_id, "q": name}, headers=auth(Role.analyst)
    )
    items = response.json()["items"]
    return int(next(item["id"] for item in items if item["name"] == name))


async def test_dataset_lists_columns_database_and_dependents(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    dataset_id = await _dataset_id(client, auth, "energy_consumption")
    response = await client.get(
        f"/api/datasets/{dataset_id}?env_id=staging", headers=auth(Role.analyst)
    )
    body = response.json()
    assert {column["name"] for column in body["columns"]} >= {"day", "region", "consumption_mwh"}
    assert body["database_name"] == "Демо-данные"
    assert body["database_backend"] == "sqlite"
    assert {chart["name"] for chart in body["charts"]} >= {
        "Потребление по регионам",
        "Динамика потребления",
        "Пиковая нагрузка, МВт",
    }
    assert {dash["title"] for dash in body["dashboards"]} >= {
        "Отчёт по энергопотреблению",
        "Мониторинг сетей",
        "Energy KPIs",
        "Executive Summary",
    }
    # sstools' own verdict, kept per environment: approving it in dev says nothing of staging.
    dev_id = await _dataset_id(client, auth, "energy_consumption", env_id="ss-dev")
    approved = await client.put(
        f"/api/datasets/{dev_id}/review?env_id=ss-dev",
        json={"status": "approved"},
        headers=auth(Role.engineer),
    )
    assert approved.status_code == 200
    again = await client.get(
        f"/api/datasets/{dataset_id}?env_id=staging", headers=auth(Role.analyst)
    )
    assert again.json()["review"] == {
        "status": "unreviewed",
        "reviewed_by": None,
        "updated_at": None,
    }
    in_dev = await client.get(f"/api/datasets/{dev_id}?env_id=ss-dev", headers=auth(Role.analyst))
    assert in_dev.json()["review"]["status"] == "approved"
    assert in_dev.json()["review"]["reviewed_by"] == "engineer"


async def test_review_is_set_by_engineers_only_and_persists(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    dataset_id = await _dataset_id(client, auth, "weather_daily")
    url = f"/api/datasets/{dataset_id}/review?env_id=staging"
    refused = await client.put(url, json={"status": "approved"}, headers=auth(Role.analyst))
    assert refused.status_code == 403
    bad = await client.put(url, json={"status": "great"}, headers=auth(Role.engineer))
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["loc"] == ["body", "status"]
    done = await client.put(url, json={"status": "changes_requested"}, headers=auth(Role.engineer))
    assert done.status_code == 200
    shown = await client.get(
        f"/api/datasets/{dataset_id}?env_id=staging", headers=auth(Role.analyst)
    )
    assert shown.json()["review"]["status"] == "changes_requested"
    assert shown.json()["review"]["reviewed_by"] == "engineer"
    missing = await client.put(
        "/api/datasets/99999/review?env_id=staging",
        json={"status": "approved"},
        headers=auth(Role.engineer),
    )
    assert missing.status_code == 404


async def test_databases_drill_down_to_columns(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    headers = auth(Role.analyst)
    databases = (await client.get("/api/databases?env_id=ss-dev", headers=headers)).json()
    demo = next(db for db in databases if db["name"] == "Демо-данные")
    schemas = (
        await client.get(f"/api/databases/{demo['id']}/schemas?env_id=ss-dev", headers=headers)
    ).json()
    assert schemas == ["main"]
    tables = (
        await client.get(
            f"/api/databases/{demo['id']}/schemas/main/tables?env_id=ss-dev", headers=headers
        )
    ).json()
    assert {"energy_consumption", "regions", "sales_orders", "weather_daily"} <= set(tables)
    columns = (
        await client.get(
            f"/api/databases/{demo['id']}/schemas/main/tables/regions/columns?env_id=ss-dev",
            headers=headers,
        )
    ).json()
    assert [column["name"] for column in columns] == [
        "region",
        "federal_district",
        "population_thousands",
    ]


async def test_permission_audit_names_roles_and_grants(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    dataset_id = await _dataset_id(client, auth, "energy_consumption")
    response = await client.get(
        "/api/permissions/audit",
        params={"env_id": "staging", "object_type": "dataset", "object_id": dataset_id},
        headers=auth(Role.analyst),
    )
    roles = {role["role"]: role for role in response.json()["roles"]}
    assert roles["energy_viewers"]["can_reach"]
    assert any("datasource_access" in via for via in roles["energy_viewers"]["via"])
    assert roles["Alpha"]["can_reach"]
    assert "all_datasource_access" in roles["Alpha"]["via"]
    assert not roles["Gamma"]["can_reach"]
    assert roles["Gamma"]["missing"]

    weather_id = await _dataset_id(client, auth, "weather_daily")
    other = await client.get(
        "/api/permissions/audit",
        params={"env_id": "staging", "object_type": "dataset", "object_id": weather_id},
        headers=auth(Role.analyst),
    )
    assert not {r["role"]: r for r in other.json()["roles"]}["energy_viewers"]["can_reach"]

    dashboard = await client.get(
        "/api/permissions/audit",
        params={"env_id": "staging", "object_type": "dashboard", "object_id": 10},
        headers=auth(Role.analyst),
    )
    dash_roles = {role["role"]: role for role in dashboard.json()["roles"]}
    assert dash_roles["energy_viewers"]["can_reach"]
    assert not dash_roles["Gamma"]["can_reach"]
