"""The agent with no model understands people, round 3 (issue 36): what failed is read from the
task records, «все» is every dashboard, and a comparison the role cannot plan is the drift.

Through the real graph and HTTP API, the offline planner answering, as in
``test_offline_understands_requests``; every phrasing is a person's, none from a held-back set.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from sstools.auth.roles import Role
from sstools.testing import LiveServer
from tests.agent.test_offline_understands_requests import Server, answer, called, say
from tests.support import types

DEV_DASHBOARDS = [{"id": 10, "title": "Отчёт по энергопотреблению"}, {"id": 12, "title": "Тарифы"}]


DEV_DATASETS = [
    {"id": 3, "name": "sales_orders", "schema": "main", "database_id": 1},
    {"id": 2, "name": "regions", "schema": "main", "database_id": 1},
]

# The page's dataset as GET /api/datasets/3 answers: its columns and its database's kind.
SALES_ORDERS = {
    **DEV_DATASETS[0],
    "database_backend": "sqlite",
    "columns": [
        {"name": "order_id", "type": "INTEGER"},
        {"name": "order_date", "type": "DATE"},
        {"name": "region", "type": "TEXT"},
        {"name": "channel", "type": "TEXT"},
        {"name": "revenue_rub", "type": "REAL"},
    ],
}


class FleetServer(Server):
    """The tools' server, listing two dashboards (what «все» means) and two datasets in ss-dev."""

    async def handle(self, request: Request) -> Response:
        if request.url.path == "/api/dashboards":
            self.requests.append(("GET", "/api/dashboards"))
            here = request.query_params.get("env_id") == "ss-dev"
            return JSONResponse({"items": DEV_DASHBOARDS if here else []})
        if request.url.path == "/api/datasets":
            here = request.query_params.get("env_id") == "ss-dev"
            return JSONResponse({"items": DEV_DATASETS if here else []})
        if request.url.path == "/api/datasets/3":
            self.requests.append(("GET", "/api/datasets/3"))
            return JSONResponse(SALES_ORDERS)
        return await super().handle(request)


@pytest.fixture
def server() -> Iterator[tuple[Server, str]]:
    made = FleetServer()
    with LiveServer(made.app) as live:
        yield made, live.url


D = "dashboard"


@pytest.mark.parametrize(
    "text",
    [
        "почему не прошла последняя выкатка",
        "почему упала последняя задача?",
        "что сломалось в последнем деплое",
        "why did the last deploy fail?",
        "статус моей последней миграции",
    ],
)
async def test_what_failed_is_read_from_the_tasks_never_a_rollback_or_a_deploy(
    make_agent: Any, server: tuple[Server, str], text: str
) -> None:
    made, url = server
    events = await say(make_agent, url, text, None, Role.engineer)
    assert [name for name, _ in called(events)] == ["list_tasks"], events
    assert "confirm_required" not in types(events)
    assert made.writes == []


@pytest.mark.parametrize(
    ("text", "target"),
    [("выкати все в стейдж", "staging"), ("deploy everything to prod", "prod")],
)
async def test_all_dashboards_are_a_migration_not_one_deploy_asked_back(
    make_agent: Any, server: tuple[Server, str], text: str, target: str
) -> None:
    made, url = server
    events = await say(make_agent, url, text, None, Role.engineer)
    card = events[-1]
    assert card["type"] == "confirm_required", events
    assert (card["tool"], card["args"]["target_env_id"]) == ("execute_migration", target)
    assert card["args"]["dashboard_ids"] == [10, 12]  # every dashboard of the source
    assert made.writes == []


async def test_all_changes_of_one_dashboard_stay_its_deploy(
    make_agent: Any, server: tuple[Server, str]
) -> None:
    made, url = server
    events = await say(make_agent, url, "выкати все изменения в прод", D, Role.engineer)
    assert events[-1]["type"] == "confirm_required", events
    assert events[-1]["tool"] == "deploy_dashboard"
    assert made.writes == []


async def test_an_analyst_comparing_environments_gets_the_drift_not_a_refusal(
    make_agent: Any, server: tuple[Server, str]
) -> None:
    made, url = server
    text = "чем этот дашборд на стейдже отличается от дева"
    events = await say(make_agent, url, text, D, Role.analyst)
    assert [name for name, _ in called(events)] == ["get_drift"], events
    assert "Недостаточно прав" not in str(events)
    assert made.writes == []


async def test_rows_of_a_table_named_without_its_page_are_counted_by_a_read(
    make_agent: Any, server: tuple[Server, str]
) -> None:
    _, url = server
    events = await say(make_agent, url, "сколько строк в sales_orders", None, Role.analyst)
    [(tool, args)] = called(events)
    assert tool == "superset_execute_sql"
    assert args["sql"] == 'SELECT count(*) AS row_count FROM "main"."sales_orders"'
    assert args["database_id"] == 1
    assert "confirm_required" not in types(events)


@pytest.mark.parametrize(
    ("text", "sql"),
    [
        (
            "какая средняя выручка по регионам?",
            'SELECT "region", AVG("revenue_rub") AS "avg_revenue_rub"'
            ' FROM "main"."sales_orders" GROUP BY 1 ORDER BY 1',
        ),
        (
            "есть ли пустые значения в колонке region?",  # the schema would not say: a query
            'SELECT COUNT(*) AS row_count, SUM(CASE WHEN "region" IS NULL THEN 1 ELSE 0 END)'
            ' AS "empty_region" FROM "main"."sales_orders"',
        ),
        (
            "what's the date range here?",
            'SELECT MIN("order_date") AS first_date, MAX("order_date") AS last_date'
            ' FROM "main"."sales_orders"',
        ),
    ],
)
async def test_a_data_question_in_words_on_a_dataset_page_runs_its_select(
    make_agent: Any, server: tuple[Server, str], text: str, sql: str
) -> None:
    made, url = server
    events = await say(make_agent, url, text, "dataset", Role.analyst)
    [(tool, args)] = called(events)
    assert (tool, args["sql"], args["database_id"]) == ("superset_execute_sql", sql, 1)
    assert ("GET", "/api/datasets/3") in made.requests  # the page's dataset's columns, read
    assert "confirm_required" not in types(events)


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("посчитай средний возраст клиентов", Role.analyst),  # no such column
        ("удали тестовые заказы из sales_orders", Role.engineer),  # never a DELETE guessed
    ],
)
async def test_a_data_question_it_cannot_place_asks_for_the_sql(
    make_agent: Any, server: tuple[Server, str], text: str, role: Role
) -> None:
    _, url = server
    events = await say(make_agent, url, text, "dataset", role)
    assert called(events) == [], events
    assert "SQL" in answer(events)  # the person is asked for the query, not told a guess


@pytest.mark.parametrize(
    "text", ["удали тестовые заказы из sales_orders", "ок, тогда удали те, где channel пустой"]
)
async def test_a_data_change_in_words_from_an_analyst_is_refused_naming_the_engineer(
    make_agent: Any, server: tuple[Server, str], text: str
) -> None:
    made, url = server
    events = await say(make_agent, url, text, "dataset", Role.analyst)
    assert called(events) == [], events
    assert "«инженер»" in answer(events)  # the role that may, not a question for a query
    assert made.writes == []
