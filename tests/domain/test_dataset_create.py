"""Create dataset and the dataset answer, without Superset: the tools' calls, the planner's
choice, the request's shape, the chart references checked, and the answer as a person reads it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage, HumanMessage

from sstools.agent.context import ObjectType, UIContext, prompt_block, system_message
from sstools.agent.offline.answers.datasets import render_overview
from sstools.agent.offline.planner import offline_planner
from sstools.agent.selection import select_tools
from sstools.agent.tools import CATALOGUE, CallScope, ToolArgumentError
from sstools.auth.roles import Role
from sstools.domain.datasets import chart_references
from tests.conftest import AuthHeaders

ON_DATASET = CallScope(env_id="staging", object_type=ObjectType.dataset, object_id=15)


def _build(tool: str, raw: dict[str, Any], scope: CallScope) -> tuple[str, str, Any]:
    spec = CATALOGUE[tool]
    assert spec.build is not None
    request = spec.build(spec.args_model.model_validate(raw), scope)
    return request.method, request.path, request.json_body


def test_explore_on_a_dataset_page_with_no_target_is_that_datasets_overview() -> None:
    assert _build("superset_explore_database", {}, ON_DATASET)[:2] == (
        "GET",
        "/api/datasets/15/overview",
    )
    # a target given, or no dataset in context: the drill-down as before
    assert _build("superset_explore_database", {"database_id": 2}, ON_DATASET)[1] == (
        "/api/databases/2/schemas"
    )
    elsewhere = CallScope(env_id="staging")
    assert _build("superset_explore_database", {}, elsewhere)[1] == "/api/databases"


def test_create_tool_sends_a_physical_or_a_virtual_request() -> None:
    physical = {"database_id": 1, "schema_name": "main", "table": "regions"}
    assert _build("superset_create_dataset", physical, ON_DATASET) == (
        "POST",
        "/api/datasets",
        {"env_id": "staging", "database_id": 1, "schema": "main", "table": "regions"},
    )
    virtual = {"database_id": 1, "sql": "select 1 as a", "name": "one"}
    assert _build("superset_create_dataset", virtual, ON_DATASET)[2] == {
        "env_id": "staging",
        "database_id": 1,
        "sql": "select 1 as a",
        "name": "one",
    }
    with pytest.raises(ToolArgumentError):
        _build("superset_create_dataset", {"database_id": 1}, ON_DATASET)
    assert CATALOGUE["superset_create_dataset"].kind.value == "write"  # a card before it runs


@pytest.mark.parametrize(
    "text",
    ["есть ли проблемы с этим датасетом?", "расскажи про этот датасет", "какие у него колонки?"],
)
def test_offline_planner_answers_dataset_questions_with_the_overview(text: str) -> None:
    context = UIContext.model_validate(
        {
            "contextVersion": 1,
            "objectType": "dataset",
            "objectId": "15",
            "envId": "staging",
            "route": "/datasets/15",
        }
    )
    offered = select_tools(Role.analyst, context).offered
    planner = offline_planner(["ss-dev", "staging", "prod"])
    bound = planner.bind_tools([CATALOGUE[name].schema() for name in offered])
    reply = bound.invoke([system_message(prompt_block(context), context), HumanMessage(text)])
    assert isinstance(reply, AIMessage)
    assert [(call["name"], call["args"]) for call in reply.tool_calls] == [
        ("superset_explore_database", {})
    ]


def test_chart_references_cover_columns_metrics_and_filters_but_not_sql() -> None:
    params = {
        "groupby": ["region", {"label": "x", "sqlExpression": "upper(sector)"}],
        "x_axis": "day",
        "metrics": [
            "count",
            {"expressionType": "SIMPLE", "column": {"column_name": "consumption_mwh"}},
            {"expressionType": "SQL", "sqlExpression": "sum(hidden)"},
        ],
        "adhoc_filters": [
            {"expressionType": "SIMPLE", "subject": "sector", "operator": "=="},
            {"expressionType": "SQL", "sqlExpression": "other = 1"},
        ],
        "all_columns": ["tariff"],
        "metric": "peak",
    }
    columns, metrics = chart_references(params)
    assert columns == {"region", "day", "consumption_mwh", "sector", "tariff"}
    assert metrics == {"count", "peak"}


OVERVIEW: dict[str, Any] = {
    "id": 15,
    "name": "energy_consumption",
    "schema": "main",
    "database_name": "Демо-данные",
    "sql": None,
    "columns": [{"name": "day", "type": "DATE"}, {"name": "region", "type": "TEXT"}],
    "metrics": ["count"],
    "owners": [],
    "charts": [{"id": 3, "name": "Динамика"}],
    "dashboards": [{"id": 10, "title": "Отчёт по энергопотреблению"}],
    "review": {
        "status": "approved",
        "reviewed_by": "ирина",
        "updated_at": datetime(2026, 11, 30, 9, 5, tzinfo=UTC).isoformat(),
    },
    "problems": [
        {"kind": "missing_column", "chart_id": 3, "chart_name": "Динамика", "missing": ["sector"]},
        {"kind": "no_owner"},
    ],
    "sstools_url": "/datasets/15?env_id=staging",
    "superset_url": "http://superset/explore/?datasource_type=table&datasource_id=15",
}


def test_the_answer_reads_verdict_first_in_russian_words() -> None:
    answer = render_overview(OVERVIEW)
    lines = answer.splitlines()
    assert lines[:3] == [
        "Найдено проблем: 2.",
        "- график «Динамика» использует то, чего в датасете больше нет: sector",
        "- у датасета нет владельца",
    ]
    assert "Статус ревью: одобрен (ирина, 30 ноября 2026, 09:05)" in answer
    assert "Колонки (2): day, region" in answer
    assert "Дашборды (1): «Отчёт по энергопотреблению»" in answer
    assert "[в sstools](/datasets/15?env_id=staging)" in answer
    for raw in ("2026-11-30", "approved", "missing_column", "True", "None"):
        assert raw not in answer
    clean = {**OVERVIEW, "problems": [], "review": {"status": "unreviewed"}}
    assert render_overview(clean).startswith("Проблем не найдено.")
    assert "Статус ревью: не проверялся" in render_overview(clean)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"database_id": 1, "schema": "main"}, "table"),
        ({"database_id": 1, "schema": "main", "table": "t", "sql": "select 1"}, "table"),
        ({"database_id": 1, "sql": "select 1"}, "name"),
        ({"database_id": 1, "table": "t"}, "schema"),
        ({"database_id": 0, "schema": "main", "table": "t"}, "database_id"),
        ({"database_id": 1, "schema": "main", "table": ""}, "table"),
    ],
)
async def test_a_request_missing_what_its_kind_needs_is_a_422_naming_the_field(
    client: httpx.AsyncClient, auth: AuthHeaders, body: dict[str, Any], field: str
) -> None:
    response = await client.post(
        "/api/datasets", json={"env_id": "ss-dev", **body}, headers=auth(Role.engineer)
    )
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", field]


async def test_an_unknown_environment_is_a_404_naming_the_known_ones(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    response = await client.post(
        "/api/datasets",
        json={"env_id": "nowhere", "database_id": 1, "schema": "main", "table": "t"},
        headers=auth(Role.engineer),
    )
    assert response.status_code == 404
    assert "nowhere" in response.json()["detail"]
