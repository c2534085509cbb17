"""Dashboards on the real sandbox: Cyrillic search, details, health, environments that differ."""

from __future__ import annotations

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.sandbox import Sandbox
from sstools.superset import SupersetClient
from tests.conftest import AuthHeaders

ENERGY_REPORT = "Отчёт по энергопотреблению"


@pytest.mark.parametrize("query", ["энерг", "Энерг", "ЭНЕРГОПОТРЕБЛЕНИЮ", "отчет по", "ОТЧЁТ"])
async def test_cyrillic_search_is_case_insensitive(
    client: httpx.AsyncClient, auth: AuthHeaders, query: str
) -> None:
    response = await client.get(
        "/api/dashboards", params={"env_id": "ss-dev", "q": query}, headers=auth(Role.analyst)
    )
    assert response.status_code == 200
    titles = [item["title"] for item in response.json()["items"]]
    assert ENERGY_REPORT in titles


async def test_our_search_finds_what_superset_own_filter_misses(sandbox: Sandbox) -> None:
    """Superset's `ct` on its SQLite metadata DB folds ASCII only; our search folds any script."""
    env = next(env for env in sandbox.environments() if env.id == "ss-dev")
    client = SupersetClient(env)
    try:

        def ct(value: str) -> dict[str, object]:
            return {"filters": [{"col": "dashboard_title", "opr": "ct", "value": value}]}

        lower = await client.get_json("/api/v1/dashboard/", query=ct("энерг"))
        upper = await client.get_json("/api/v1/dashboard/", query=ct("Энерг"))
        ours = await client.search_dashboards("Энерг")
    finally:
        await client.aclose()
    assert lower["count"] >= 1
    assert upper["count"] == 0  # the premise: delegating to `ct` would lose this dashboard
    assert ENERGY_REPORT in [item.title for item in ours.items]


async def test_sandbox_has_a_dozen_dashboards_in_both_languages(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    response = await client.get(
        "/api/dashboards", params={"env_id": "prod", "page_size": 100}, headers=auth(Role.analyst)
    )
    titles = [item["title"] for item in response.json()["items"]]
    assert len(titles) >= 12
    assert ENERGY_REPORT in titles
    assert "Energy KPIs" in titles


async def test_dashboard_10_is_the_energy_report_with_its_charts(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    response = await client.get("/api/dashboards/10?env_id=ss-dev", headers=auth(Role.analyst))
    assert response.status_code == 200
    body = response.json()
    assert body["title"] == ENERGY_REPORT
    assert {chart["name"] for chart in body["charts"]} >= {
        "Потребление по регионам",
        "Динамика потребления",
        "Структура по секторам",
    }
    assert [dataset["name"] for dataset in body["datasets"]] == ["energy_consumption"]
    assert body["owners"]
    assert body["changed_on"]


async def test_health_reports_a_chart_whose_dataset_was_dropped(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    search = await client.get(
        "/api/dashboards",
        params={"env_id": "prod", "q": "Тарифы 2023"},
        headers=auth(Role.analyst),
    )
    archive_id = search.json()["items"][0]["id"]
    health = await client.get(
        f"/api/dashboards/{archive_id}/health?env_id=prod", headers=auth(Role.analyst)
    )
    body = health.json()
    assert body["status"] == "degraded"
    assert body["broken_charts"] == 1
    assert "Тарифы (устаревшие)" in body["problems"][0]
    assert body["git_status"] == "не версионирован"
    assert body["last_validation"] == "не проверялся"

    good = (
        await client.get("/api/dashboards/10/health?env_id=prod", headers=auth(Role.analyst))
    ).json()
    assert good["status"] == "ok"
    assert good["broken_charts"] == 0
    assert good["published"]


async def test_environments_differ_like_real_ones(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    async def find(env_id: str, query: str) -> list[dict[str, object]]:
        response = await client.get(
            "/api/dashboards", params={"env_id": env_id, "q": query}, headers=auth(Role.analyst)
        )
        items: list[dict[str, object]] = response.json()["items"]
        return items

    assert await find("ss-dev", "Прогноз нагрузки")
    assert not await find("prod", "Прогноз нагрузки")
    dev_kpis, prod_kpis = (
        (await find("ss-dev", "Energy KPIs"))[0],
        (await find("prod", "Energy KPIs"))[0],
    )
    assert str(dev_kpis["changed_on"]) > str(prod_kpis["changed_on"])


async def test_unknown_dashboard_is_404(client: httpx.AsyncClient, auth: AuthHeaders) -> None:
    response = await client.get("/api/dashboards/99999?env_id=ss-dev", headers=auth(Role.analyst))
    assert response.status_code == 404
    assert "ss-dev" in response.json()["detail"]


async def test_environments_are_reachable(client: httpx.AsyncClient, auth: AuthHeaders) -> None:
    response = await client.get("/api/environments", headers=auth(Role.analyst))
    assert [(env["id"], env["stage"], env["reachable"]) for env in response.json()] == [
        ("ss-dev", "dev", True),
        ("staging", "staging", True),
        ("prod", "prod", True),
    ]


DRAFT = "Прогноз нагрузки (черновик)"


async def _placements(
    client: httpx.AsyncClient, auth: AuthHeaders, title: str
) -> dict[str, dict[str, object]]:
    found = await client.get(
        "/api/dashboards", params={"env_id": "ss-dev", "q": title}, headers=auth(Role.analyst)
    )
    [dashboard] = [item for item in found.json()["items"] if item["title"] == title]
    response = await client.get(
        f"/api/dashboards/{dashboard['id']}/environments",
        params={"env_id": "ss-dev"},
        headers=auth(Role.analyst),
    )
    assert response.status_code == 200
    return {row["env_id"]: row for row in response.json()["environments"]}


async def test_the_dev_only_draft_lives_only_in_ss_dev(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    rows = await _placements(client, auth, DRAFT)
    assert {env_id: row["present"] for env_id, row in rows.items()} == {
        "ss-dev": True,
        "staging": False,
        "prod": False,
    }
    assert all(row["reachable"] for row in rows.values())
    assert rows["ss-dev"]["title"] == DRAFT
    assert rows["ss-dev"]["changed_on"]
    assert rows["ss-dev"]["git_status"]
    assert rows["prod"]["stage"] == "prod"


async def test_the_energy_report_lives_in_all_three(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    """Staging and prod got it from dev by export → import, so it is found there by UUID."""
    rows = await _placements(client, auth, ENERGY_REPORT)
    assert [row["present"] for row in rows.values()] == [True, True, True]
    assert [row["dashboard_id"] for row in rows.values()] == [10, 10, 10]
    assert [row["title"] for row in rows.values()] == [ENERGY_REPORT] * 3
