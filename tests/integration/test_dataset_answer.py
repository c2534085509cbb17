"""Story 1 acceptance 2 on the real sandbox: on a dataset's page, «есть ли проблемы с этим
датасетом?» is answered with its columns and metrics, its dependent dashboards and its review
status, from the dataset-context tools only — by the offline planner and by a model."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing import LiveServer
from tests.agent.conftest import DATASET_SET
from tests.conftest import AuthHeaders
from tests.integration.deploy_support import Superset
from tests.openai_server import ScriptedOpenAI
from tests.support import read_events, types

QUESTION = "есть ли проблемы с этим датасетом?"
COLUMNS = {"day", "region", "consumption_mwh"}
# dev: the source environment, which the other engineers' tests only read (staging is restored
# into and deployed to while tests run, so its dependents come and go).
ENV = "ss-dev"


async def _dataset_id(
    client: httpx.AsyncClient, auth: AuthHeaders, name: str, env_id: str = ENV
) -> int:
    response = await client.get(
        "/api/datasets", params={"env_id": env_id, "q": name}, headers=auth(Role.analyst)
    )
    return int(next(item["id"] for item in response.json()["items"] if item["name"] == name))


def _context(dataset_id: int, env_id: str, name: str) -> dict[str, Any]:
    return {
        "contextVersion": 1,
        "objectType": "dataset",
        "objectId": str(dataset_id),
        "objectName": name,
        "envId": env_id,
        "route": f"/datasets/{dataset_id}",
    }


async def _dashboards(superset: Superset, dataset_id: int) -> set[str]:
    """The dashboards Superset itself says use the dataset, right now."""
    related = await superset(ENV).get_json(f"/api/v1/dataset/{dataset_id}/related_objects")
    titles = {dash["title"] for dash in related["dashboards"]["result"]}
    assert "Отчёт по энергопотреблению" in titles
    return titles


async def _ask(
    live: httpx.AsyncClient, headers: dict[str, str], context: dict[str, Any]
) -> list[dict[str, Any]]:
    cid = (await live.post("/api/agent/conversations", headers=headers)).json()["id"]
    sent = await live.post(
        f"/api/agent/conversations/{cid}/messages",
        headers=headers,
        json={"text": QUESTION, "uicontext": context},
    )
    assert sent.status_code in (200, 202), sent.text
    return await read_events(live, cid, headers, timeout_s=60)


@pytest.fixture
async def offline(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    with LiveServer(create_app(settings)) as server:  # no LLM configured: the offline planner
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as live:
            yield live


async def test_overview_route_has_mappings_dependents_review_and_problems(
    client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset
) -> None:
    dataset_id = await _dataset_id(client, auth, "energy_consumption")
    dashboards = await _dashboards(superset, dataset_id)
    response = await client.get(
        f"/api/datasets/{dataset_id}/overview?env_id={ENV}", headers=auth(Role.analyst)
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert {column["name"] for column in body["columns"]} >= COLUMNS
    assert {dash["title"] for dash in body["dashboards"]} == dashboards
    assert body["database_name"] == "Демо-данные"
    assert body["review"]["status"] == "unreviewed"
    assert {"kind": "never_reviewed"}.items() <= body["problems"][-1].items()
    assert not [p for p in body["problems"] if p["kind"] in ("missing_column", "no_owner")]
    assert body["sstools_url"] == f"/datasets/{dataset_id}?env_id={ENV}"
    missing = await client.get(
        f"/api/datasets/99999/overview?env_id={ENV}", headers=auth(Role.analyst)
    )
    assert missing.status_code == 404


async def test_story1_acceptance2_with_the_offline_planner(
    client: httpx.AsyncClient, offline: httpx.AsyncClient, auth: AuthHeaders, superset: Superset
) -> None:
    dataset_id = await _dataset_id(client, auth, "energy_consumption")
    dashboards = await _dashboards(superset, dataset_id)
    headers = auth(Role.engineer)
    offered = (
        await offline.get(f"/api/agent/tools?objectType=dataset&envId={ENV}", headers=headers)
    ).json()["offered"]
    assert set(offered) == DATASET_SET
    events = await _ask(offline, headers, _context(dataset_id, ENV, "energy_consumption"))
    assert types(events) == ["run_started", "tool_call", "tool_result", "message", "done"]
    assert events[1]["tool"] == "superset_explore_database"
    assert events[2]["outcome"] == "ok"
    answer = events[3]["text"]
    assert answer.splitlines()[1] == "Найдено проблем: 1."  # the verdict first, under the title
    assert "датасет ещё не проходил ревью" in answer
    assert "Статус ревью: не проверялся" in answer
    for name in COLUMNS | dashboards:
        assert name in answer
    for raw in ("True", "False", "unreviewed", "never_reviewed", "superset_explore_database"):
        assert raw not in answer
    assert f"/datasets/{dataset_id}?env_id={ENV}" in answer


def _answer_from_overview(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
    """A model: explore the context dataset, then answer from what the tool returned."""
    if messages[-1]["role"] != "tool":
        return {"tool_calls": [("superset_explore_database", {})]}
    overview = json.loads(messages[-1]["content"])
    columns = ", ".join(column["name"] for column in overview["columns"])
    dashboards = ", ".join(dash["title"] for dash in overview["dashboards"])
    review = {"unreviewed": "не проверялся", "approved": "одобрен"}[overview["review"]["status"]]
    return {"text": f"Колонки: {columns}. Используют: {dashboards}. Ревью: {review}."}


async def test_story1_acceptance2_with_a_model(
    client: httpx.AsyncClient, settings: Settings, auth: AuthHeaders, superset: Superset
) -> None:
    dataset_id = await _dataset_id(client, auth, "energy_consumption")
    dashboards = await _dashboards(superset, dataset_id)
    llm = ScriptedOpenAI(_answer_from_overview)
    with LiveServer(llm.app) as llm_server:
        with_model = settings.model_copy(
            update={
                "llm_base_url": f"{llm_server.url}/v1",
                "llm_model": "scripted",
                "llm_api_key": SecretStr("sk-test"),
                "router": "off",  # Story 1's exact set is the hard filter's (the router narrows it)
            }
        )
        with LiveServer(create_app(with_model)) as server:
            async with httpx.AsyncClient(base_url=server.url, timeout=60) as live:
                context = _context(dataset_id, ENV, "energy_consumption")
                events = await _ask(live, auth(Role.engineer), context)
    assert [event.get("tool") for event in events if event["type"] == "tool_call"] == [
        "superset_explore_database"
    ]
    offered = {tool["function"]["name"] for tool in llm.requests[0]["tools"]}
    assert offered == DATASET_SET
    # the model was told which dataset, and read its overview (not a list of databases)
    tool_message = json.loads(llm.requests[1]["messages"][-1]["content"])
    assert tool_message["id"] == dataset_id
    answer = next(event["text"] for event in events if event["type"] == "message")
    for name in COLUMNS | dashboards:
        assert name in answer
    assert "Ревью: не проверялся" in answer


async def test_a_chart_using_a_dropped_column_is_a_problem_the_answer_names(
    client: httpx.AsyncClient,
    offline: httpx.AsyncClient,
    auth: AuthHeaders,
    superset: Superset,
) -> None:
    """A virtual dataset loses a column a chart groups by: the overview names chart and column."""
    dev = superset("ss-dev")
    database_id = next(db.id for db in await dev.list_databases() if db.name == "Демо-данные")
    name = f"h7_answer_{uuid.uuid4().hex[:8]}"
    dataset_id = await dev.create_dataset(
        database_id, name, schema="main", sql="select region, federal_district from regions"
    )
    chart_id: int | None = None
    try:
        params = {
            "viz_type": "table",
            "query_mode": "aggregate",
            "groupby": ["federal_district"],
            "metrics": ["count"],
            "adhoc_filters": [
                {"expressionType": "SIMPLE", "subject": "region", "operator": "IS NOT NULL"}
            ],
            "datasource": f"{dataset_id}__table",
        }
        chart = await dev.post_json(
            "/api/v1/chart/",
            {
                "slice_name": f"{name} chart",
                "viz_type": "table",
                "datasource_id": dataset_id,
                "datasource_type": "table",
                "params": json.dumps(params),
            },
        )
        chart_id = int(chart["id"])
        await dev.put_json(f"/api/v1/dataset/{dataset_id}", {"sql": "select region from regions"})
        await dev.put_json(f"/api/v1/dataset/{dataset_id}/refresh", {})

        overview = (
            await client.get(
                f"/api/datasets/{dataset_id}/overview?env_id=ss-dev", headers=auth(Role.analyst)
            )
        ).json()
        assert [column["name"] for column in overview["columns"]] == ["region"]
        broken = [p for p in overview["problems"] if p["kind"] == "missing_column"]
        assert broken == [
            {
                "kind": "missing_column",
                "chart_id": chart_id,
                "chart_name": f"{name} chart",
                "missing": ["federal_district"],
            }
        ]

        events = await _ask(offline, auth(Role.analyst), _context(dataset_id, "ss-dev", name))
        answer = events[3]["text"]
        assert f"график «{name} chart» использует то, чего в датасете больше нет: " in answer
        assert "federal_district" in answer
    finally:
        if chart_id is not None:
            await dev.delete(f"/api/v1/chart/{chart_id}")
        await dev.delete(f"/api/v1/dataset/{dataset_id}")
