"""Issue 36, round 5: phrasings from the fifth tuning set (written by a helper that never read the
planner), each the call a person should get — or, where it matters, the call they must not get.

The planner is handed the sandbox's fleet as the graph hands it
(:mod:`tests.agent.test_planner_names`).
"""

from __future__ import annotations

import pytest

from sstools.agent.context import UIContext
from sstools.agent.fleet import ListedTask
from sstools.agent.routing.router import ToolRouter
from sstools.agent.selection import select_tools
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role
from sstools.sandbox.seed import DASHBOARDS
from tests.agent.test_planner_names import FLEET, call, plan

DEV = {spec.title: n for n, spec in enumerate(DASHBOARDS, 1)}
FAILED_MIGRATION = "a6d03e7b" + "9" * 24
STAGING_BACKUP = "staging.20261205T023000000000Z"
RECORDS = FLEET.model_copy(
    update={
        "tasks": [
            *FLEET.tasks,
            ListedTask(
                id=FAILED_MIGRATION,
                kind="migration",
                status="failed",
                env_id="staging",
                objects=["Мониторинг сетей"],
                started_by="bo",
            ),
            ListedTask(
                id="c" * 32,
                kind="backup",
                status="succeeded",
                env_id="staging",
                objects=[STAGING_BACKUP],
                started_by="al",
            ),
        ]
    }
)


@pytest.mark.parametrize(
    ("text", "tool", "title"),
    [
        ("health check on Customer Revenue pls", "get_health_summary", "Customer Revenue"),
        (
            "validate Regional Sales Trends before I ship it",
            "run_llm_validation",
            "Regional Sales Trends",
        ),
        ("выкати Пиковые нагрузки на стейдж", "deploy_dashboard", "Пиковые нагрузки"),
        ("хронология правок каналов продаж", "get_dashboard_timeline", "Каналы продаж"),
    ],
)
def test_beside_one_dashboard_another_named_by_title_is_the_one_meant(
    text: str, tool: str, title: str
) -> None:
    name, args = call(plan(text, "dashboard", str(DEV["Energy KPIs"])))
    assert name == tool
    assert args["dashboard_id"] == DEV[title]


def test_beside_a_dashboard_its_own_title_is_still_that_dashboard() -> None:
    name, args = call(plan("статус Energy KPIs", "dashboard", str(DEV["Energy KPIs"])))
    assert name == "get_health_summary"
    assert "dashboard_id" not in args  # the page's, as when no title is said


def test_everything_but_the_draft_and_the_archive_leaves_both_out() -> None:
    name, args = call(plan("мигрируй всё кроме черновика и архива в стейдж", role=Role.admin))
    assert name == "execute_migration"
    left_out = {DEV["Прогноз нагрузки (черновик)"], DEV["Тарифы 2023 (архив)"]}
    assert set(args["dashboard_ids"]) == set(DEV.values()) - left_out


def test_well_then_is_not_every_dashboard() -> None:
    """«ну всё, катим…» moves the page's dashboard, never the whole environment."""
    name, args = call(plan("ну всё, катим этот дашик в прод", "dashboard", str(DEV["Energy KPIs"])))
    assert (name, args) == ("deploy_dashboard", {"target_env_id": "prod"})


@pytest.mark.parametrize(
    "text", ["надо катнуть каналы продаж на стейдж, сделаешь?", "катни Каналы продаж на стейдж"]
)
def test_slang_for_a_deploy_asked_politely_is_a_deploy_not_its_plan(text: str) -> None:
    name, args = call(plan(text, "dashboard", str(DEV["Energy KPIs"])))
    assert name == "deploy_dashboard"
    assert args == {"target_env_id": "staging", "dashboard_id": DEV["Каналы продаж"]}


def test_a_task_by_its_first_digits_is_read_by_its_whole_id() -> None:
    name, args = call(plan("why did a6d03e7b fail", handed=RECORDS))
    assert (name, args) == ("get_task_status", {"task_id": FAILED_MIGRATION})


def test_why_a_named_dashboards_migration_failed_reads_that_task() -> None:
    name, args = call(plan("почему упала миграция мониторинга сетей", handed=RECORDS))
    assert (name, args) == ("get_task_status", {"task_id": FAILED_MIGRATION})


def test_why_tasks_failed_without_a_dashboard_is_the_list() -> None:
    name, _ = call(plan("почему упала последняя миграция?", handed=RECORDS))
    assert name == "list_tasks"


def test_my_backup_is_restored_from_the_records() -> None:
    name, args = call(plan("накати мой бэкап стейджа обратно", role=Role.admin, handed=RECORDS))
    assert name == "restore_backup"
    assert args["backup_id"] == STAGING_BACKUP


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("commit this board, msg: reorder KPI tiles", "reorder KPI tiles"),
        ("сохрани в гит дашборды 3 и 8, коммент — погода: новые графики", "погода: новые графики"),
    ],
)
def test_a_commit_message_after_a_short_marker(text: str, message: str) -> None:
    name, args = call(plan(text, "dashboard", str(DEV["Energy KPIs"])))
    assert name == "commit_changes"
    assert args["message"] == message


def test_a_row_count_in_slang_is_counted() -> None:
    name, args = call(plan("скока строк тут", "dataset", "3", role=Role.analyst))
    assert name == "superset_execute_sql"
    assert "count(*)" in args["sql"]
    assert "sales_orders" in args["sql"]


def test_something_about_a_topic_is_a_search() -> None:
    name, args = call(plan("есть у нас что-то про погоду?", "dataset", "4", role=Role.analyst))
    assert name == "search_dashboards"
    assert set(args["dashboard_ids"]) == {DEV["Погода и нагрузка"], DEV["Weather Overview"]}


def test_a_word_explained_with_a_tail_is_answered_in_words() -> None:
    reply = plan("что такое дрейф в вашем понимании", "dataset", "1", role=Role.analyst)
    assert not reply.tool_calls
    assert "Дрейф" in reply.text


def test_someone_in_a_command_does_not_make_it_a_question() -> None:
    """«его кто-то снёс» asks nothing: the dataset is created (a card), not its schema read."""
    name, args = call(
        plan("оберни tariffs_legacy обратно в датасет, его кто-то снес", "dataset", "2")
    )
    assert name == "superset_create_dataset"
    assert args["table"] == "tariffs_legacy"


def test_generate_a_description_is_documentation() -> None:
    name, _ = call(plan("сгенерь описание и сразу закинь в репу", "dashboard", "6"))
    assert name == "run_llm_documentation"


def test_a_word_cut_short_names_the_title() -> None:
    name, args = call(plan("run the checks on exec summary", "dashboard", "6", role=Role.analyst))
    assert (name, args["dashboard_id"]) == ("run_llm_validation", DEV["Executive Summary"])


def test_columns_of_another_table_are_read_where_it_lives() -> None:
    name, args = call(plan("columns of weather_daily?", "dataset", "1", role=Role.analyst))
    assert name == "superset_explore_database"
    assert args == {"database_id": 1, "schema_name": "main", "table": "weather_daily"}


def test_a_statement_in_the_message_is_offered_to_run_whatever_the_router_ranks() -> None:
    """Its words («regions», «population») rank the schema's tools first; the statement is run."""
    context = UIContext.model_validate(
        {"contextVersion": 1, "objectType": "dataset", "objectId": "2", "envId": "ss-dev"}
    )
    text = "update regions set population_thousands = 13200 where region = 'Москва'"
    router = ToolRouter("hybrid", 5)
    unfiltered = select_tools(Role.engineer, context, message=text)
    ranked = router(text, [CATALOGUE[name] for name in unfiltered.offered])
    assert "superset_execute_sql" not in {tool.name for tool in ranked}  # what the rule is for
    offered = select_tools(Role.engineer, context, message=text, router=router)
    assert "superset_execute_sql" in offered.offered
    name, args = call(plan(text, "dataset", "2"))
    assert name == "superset_execute_sql"
    assert args["sql"].startswith("update regions")


def test_a_question_mark_mid_message_asks_and_nothing_is_refused() -> None:
    """«прод вообще отвечает? что-то тупит» asks; an analyst is not told they may not roll back:
    the environments' state is read, in the general chat where their list is."""
    reply = plan("прод вообще отвечает? что-то тупит", "dashboard", "6", role=Role.analyst)
    assert "Недостаточно прав" not in reply.text
    assert not reply.tool_calls
    assert "«Список окружений» не делается со страницы дашборда" in str(reply.content)


def test_thanks_and_goodbye_is_answered_in_words() -> None:
    reply = plan("спасибо, пока всё", role=Role.analyst)
    assert not reply.tool_calls
