"""Issue 37 §2: a dashboard's numbers with the page's filters applied chart by chart — equal to
what the database says for the same filter, with the filters each chart could not take named."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing import LiveServer
from tests.conftest import AuthHeaders
from tests.integration.deploy_support import Superset
from tests.support import read_events

REPORT = "Отчёт по энергопотреблению"
BY_REGION = "Потребление по регионам"  # a table: SUM(consumption_mwh) grouped by region


async def _report(client: httpx.AsyncClient, auth: AuthHeaders) -> int:
    found = await client.get(
        "/api/dashboards", params={"env_id": "ss-dev", "q": REPORT}, headers=auth(Role.analyst)
    )
    return int(next(one["id"] for one in found.json()["items"] if one["title"] == REPORT))


async def _truth(superset: Superset, sql: str) -> list[dict[str, Any]]:
    client = superset("ss-dev")
    databases = await client.get_json("/api/v1/database/")
    database_id = int(databases["result"][0]["id"])
    result = await client.execute_sql(database_id, sql, schema=None, row_limit=1000)
    return result.rows


async def test_a_filtered_charts_numbers_equal_the_databases(
    client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset
) -> None:
    report = await _report(client, auth)
    regions = await _truth(superset, "SELECT DISTINCT region FROM energy_consumption ORDER BY 1")
    picked = [str(regions[0]["region"]), str(regions[-1]["region"])]
    body = {"filters": [{"column": "region", "op": "IN", "values": picked}]}
    response = await client.post(
        f"/api/dashboards/{report}/data",
        params={"env_id": "ss-dev"},
        json=body,
        headers=auth(Role.analyst),
    )
    assert response.status_code == 200, response.text
    charts = {chart["name"]: chart for chart in response.json()["charts"]}
    table = charts[BY_REGION]
    assert table["error"] is None
    assert table["filters_applied"] == ["region"]
    shown = {row[0]: row[1] for row in table["rows"]}
    assert set(shown) == set(picked)  # the filter held: no other region
    truth = await _truth(
        superset,
        "SELECT region, SUM(consumption_mwh) AS total FROM energy_consumption GROUP BY region",
    )
    truth = [row for row in truth if row["region"] in picked]
    assert len(truth) == 2
    for row in truth:
        assert abs(float(shown[row["region"]]) - float(row["total"])) < 1e-6, (row, shown)


async def test_a_filter_a_charts_dataset_lacks_is_named_not_applied(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    report = await _report(client, auth)
    response = await client.post(
        f"/api/dashboards/{report}/data",
        params={"env_id": "ss-dev"},
        json={"filters": [{"column": "no_such_column", "op": "==", "values": ["x"]}]},
        headers=auth(Role.analyst),
    )
    assert response.status_code == 200, response.text
    charts = response.json()["charts"]
    assert charts
    assert all(chart["filters_skipped"] == ["no_such_column"] for chart in charts)
    assert all(chart["error"] is None and chart["rows"] for chart in charts), charts


async def test_bad_filters_are_a_422_naming_the_field(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    report = await _report(client, auth)
    url = f"/api/dashboards/{report}/data"
    bad = await client.post(
        url,
        params={"env_id": "ss-dev"},
        json={"filters": [{"column": "region", "op": "LIKE", "values": ["x"]}]},
        headers=auth(Role.analyst),
    )
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["loc"][-1] == "op"
    missing = await client.post(
        "/api/dashboards/99999/data",
        params={"env_id": "ss-dev"},
        json={},
        headers=auth(Role.analyst),
    )
    assert missing.status_code == 404


async def test_the_agent_answers_with_the_pages_filters_and_says_which(
    client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset, settings: Settings
) -> None:
    """The person on a filtered dashboard asks for its numbers in their words: the offline agent
    reads them with the page's filters, says the filters, and shows only the filtered rows."""
    report = await _report(client, auth)
    regions = await _truth(superset, "SELECT DISTINCT region FROM energy_consumption ORDER BY 1")
    kept, other = str(regions[0]["region"]), str(regions[-1]["region"])
    context: dict[str, Any] = {
        "contextVersion": 2,
        "objectType": "dashboard",
        "objectId": str(report),
        "envId": "ss-dev",
        "route": f"/dashboards/{report}",
        "filters": [{"column": "region", "op": "IN", "values": [kept]}],
    }
    headers = auth(Role.analyst)
    with LiveServer(create_app(settings)) as server:  # the offline planner calls its tools
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as live:
            cid = (await live.post("/api/agent/conversations", headers=headers)).json()["id"]
            await live.post(
                f"/api/agent/conversations/{cid}/messages",
                headers=headers,
                json={"text": "какие тут сейчас цифры?", "uicontext": context},
            )
            events = await read_events(live, cid, headers, timeout_s=60)
    [call] = [event for event in events if event["type"] == "tool_call"]
    assert call["tool"] == "get_dashboard_data"
    answer = " ".join(event["text"] for event in events if event["type"] == "message")
    assert f"Данные с фильтрами страницы: region: {kept}" in answer
    assert BY_REGION in answer
    assert f"| {kept} |" in answer
    assert f"| {other} |" not in answer  # the filter held in the answer too


@asynccontextmanager
async def _one_sector_in_staging(superset: Superset, report: int) -> AsyncIterator[None]:
    """Staging's copy of the by-region chart counts only industry: a planted difference."""
    staging = superset("staging")
    source = await superset("ss-dev").find_dashboard("id", report)
    assert source is not None
    found = await staging.find_dashboard("uuid", source[0])
    assert found is not None
    charts = (await staging.get_json(f"/api/v1/dashboard/{found[1].id}/charts"))["result"]
    [chart] = [one for one in charts if one["slice_name"] == BY_REGION]
    saved = (await staging.get_json(f"/api/v1/chart/{chart['id']}"))["result"]["params"]
    planted = json.loads(saved)
    one_sector = {
        "expressionType": "SIMPLE", "clause": "WHERE", "subject": "sector",
        "operator": "==", "comparator": "Промышленность",
    }  # fmt: skip
    planted["adhoc_filters"] = [*planted.get("adhoc_filters", []), one_sector]
    await staging.put_json(f"/api/v1/chart/{chart['id']}", {"params": json.dumps(planted)})
    try:
        yield
    finally:
        await staging.put_json(f"/api/v1/chart/{chart['id']}", {"params": saved})


async def test_the_same_filtered_view_compared_across_environments_flags_a_planted_difference(
    client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset
) -> None:
    """Issue 37 §3: with the same filter in both, the planted chart differs — region by region,
    with both numbers — and the others do not; the dashboards themselves differ too."""
    report = await _report(client, auth)
    regions = await _truth(superset, "SELECT DISTINCT region FROM energy_consumption ORDER BY 1")
    picked = [str(regions[0]["region"]), str(regions[1]["region"])]
    body = {
        "other_env_id": "staging",
        "filters": [{"column": "region", "op": "IN", "values": picked}],
    }
    async with _one_sector_in_staging(superset, report):
        response = await client.post(
            f"/api/dashboards/{report}/data/compare",
            params={"env_id": "ss-dev"},
            json=body,
            headers=auth(Role.analyst),
        )
    assert response.status_code == 200, response.text
    compared = response.json()
    by_name = {one["name"]: one for one in compared["charts"]}
    table = by_name[BY_REGION]
    assert table["differs"] is True
    assert {tuple(one["row"]) for one in table["differences"]} == {(region,) for region in picked}
    assert all(one["here"] > one["there"] for one in table["differences"])  # one sector of all
    assert [name for name, one in by_name.items() if one["differs"]] == [BY_REGION]
    assert compared["dashboards_differ"] is True
    assert compared["differing_charts"] == 1


async def test_the_agent_says_where_staging_s_numbers_differ(
    client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset, settings: Settings
) -> None:
    """«почему в стейдже цифры другие?» on dev's filtered dashboard: the same charts compared,
    the differing chart's rows with both numbers, and the word that the dashboards differ."""
    report = await _report(client, auth)
    regions = await _truth(superset, "SELECT DISTINCT region FROM energy_consumption ORDER BY 1")
    kept = str(regions[0]["region"])
    context: dict[str, Any] = {
        "contextVersion": 2,
        "objectType": "dashboard",
        "objectId": str(report),
        "envId": "ss-dev",
        "route": f"/dashboards/{report}",
        "filters": [{"column": "region", "op": "IN", "values": [kept]}],
    }
    headers = auth(Role.analyst)
    async with _one_sector_in_staging(superset, report):
        with LiveServer(create_app(settings)) as server:
            async with httpx.AsyncClient(base_url=server.url, timeout=60) as live:
                cid = (await live.post("/api/agent/conversations", headers=headers)).json()["id"]
                await live.post(
                    f"/api/agent/conversations/{cid}/messages",
                    headers=headers,
                    json={"text": "почему в стейдже цифры другие?", "uicontext": context},
                )
                events = await read_events(live, cid, headers, timeout_s=90)
    [call] = [event for event in events if event["type"] == "tool_call"]
    assert (call["tool"], call["args"].get("compare_env_id")) == ("get_dashboard_data", "staging")
    answer = " ".join(event["text"] for event in events if event["type"] == "message")
    assert f"Сравнил ss-dev и staging с фильтрами страницы (region: {kept})" in answer
    assert "различаются графики: 1 из" in answer
    assert BY_REGION in answer
    assert f"| {kept} |" in answer
    assert "Сами дашборды тоже различаются" in answer


async def test_comparing_with_the_same_or_an_unknown_environment_is_a_422(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    report = await _report(client, auth)
    for other in ("ss-dev", "nowhere"):
        response = await client.post(
            f"/api/dashboards/{report}/data/compare",
            params={"env_id": "ss-dev"},
            json={"other_env_id": other},
            headers=auth(Role.analyst),
        )
        assert response.status_code == 422, response.text
        assert response.json()["detail"][0]["loc"] == ["body", "other_env_id"]
