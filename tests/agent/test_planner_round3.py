"""Issue 36, round 3: the offline planner reads the task records, the order a fleet flows in,
typos, picks and follow-ups the way people write them.

The planner is handed a fleet as the graph hands it (:mod:`tests.agent.test_planner_names`'s
sandbox listing) with a day of task records; each case is a person's phrasing and the call they
should get, or the question back they should read.
"""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from sstools.agent.fleet import ListedTask
from sstools.agent.selection import routing_text
from sstools.auth.roles import Role
from sstools.sandbox.seed import DASHBOARDS
from tests.agent.test_planner_names import FLEET, RELEASED, call, plan

MY_MIGRATION = "a1" * 16
THEIR_MIGRATION = "b2" * 16
MY_BACKUP = "c3" * 16
PROD_BACKUP = "prod.20261205T030000000000Z"
TASKS = FLEET.model_copy(
    update={
        "tasks": [
            ListedTask(id=THEIR_MIGRATION, kind="migration", status="failed", started_by="bo"),
            ListedTask(id=MY_MIGRATION, kind="migration", status="running", started_by="al"),
            ListedTask(
                id=MY_BACKUP,
                kind="backup",
                status="succeeded",
                env_id="prod",
                objects=[PROD_BACKUP],
                started_by="al",
            ),
        ]
    }
)
PROD_ENERGY = RELEASED.index("Energy KPIs") + 1


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("как там моя миграция?", MY_MIGRATION),
        ("моя последняя выкатка прошла?", MY_MIGRATION),  # a migration is a deploy too
        ("is my backup done yet?", MY_BACKUP),
        ("did the last migration go through?", THEIR_MIGRATION),
    ],
)
def test_a_status_question_without_an_id_finds_the_task_in_the_records(
    text: str, task: str
) -> None:
    name, args = call(plan(text, handed=TASKS))
    assert (name, args) == ("get_task_status", {"task_id": task})


def test_a_task_of_mine_that_is_not_there_is_asked_back() -> None:
    asked = plan("моя проверка уже закончилась?", handed=TASKS)
    assert not asked.tool_calls
    assert "задач" in asked.text


def test_two_environments_named_flow_from_the_earlier_stage() -> None:
    """Asked from prod's chat: the ids are dev's, dev is where from."""
    name, args = call(plan("сравни Energy KPIs в prod и dev", env_id="prod"))
    assert name == "preview_migration"
    assert args == {"dashboard_ids": [6], "source_env_id": "ss-dev", "target_env_id": "prod"}
    name, args = call(plan("выкати всё, что есть в деве, в прод", env_id="prod"))
    assert name == "execute_migration"
    assert (args["source_env_id"], args["target_env_id"]) == ("ss-dev", "prod")
    assert args["dashboard_ids"] == list(range(1, len(DASHBOARDS) + 1))


@pytest.mark.parametrize(
    ("text", "dashboard_id"),
    [("статус дашборда Executiv Sumary", 2), ("статус Продажи по регоинам", 1)],
)
def test_a_title_with_a_typo_is_still_the_dashboard(text: str, dashboard_id: int) -> None:
    name, args = call(plan(text, role=Role.analyst))
    assert (name, args) == ("get_health_summary", {"dashboard_id": dashboard_id})


def test_first_picks_the_first_of_the_choices_listed() -> None:
    first = HumanMessage("статус дашборда про погоду")
    asked = AIMessage("Подходят два: «Погода и нагрузка» и «Weather Overview». Какой из них?")
    name, args = call(plan("первый", earlier=[first, asked], role=Role.analyst))
    assert (name, args) == ("get_health_summary", {"dashboard_id": 3})


def test_and_on_prod_asks_the_same_again_there() -> None:
    first = HumanMessage("как дела у Energy KPIs?")
    answered = AIMessage("Energy KPIs в ss-dev: всё в порядке, графики грузятся.")
    name, args = call(plan("а на проде?", earlier=[first, answered], role=Role.analyst))
    assert name == "get_health_summary"
    assert args == {"dashboard_id": PROD_ENERGY, "env_id": "prod"}


def test_tools_are_ranked_for_the_request_a_short_answer_completes() -> None:
    earlier = [HumanMessage("мигрируй в staging"), AIMessage("Какие дашборды перенести?")]
    assert routing_text([*earlier, HumanMessage("все")]) == "мигрируй в staging все"
    answered = [*earlier, AIMessage("Готово."), HumanMessage("все")]
    assert routing_text(answered) == "все"  # not an answer to a question: itself


def test_who_changed_it_reads_its_versions() -> None:
    name, args = call(plan("кто последний менял Energy KPIs?", role=Role.analyst))
    assert (name, args) == ("get_dashboard_timeline", {"dashboard_id": 6})
    name, args = call(plan("какие версии есть у Executive Summary?", role=Role.analyst))
    assert (name, args) == ("get_dashboard_timeline", {"dashboard_id": 2})


def test_what_a_deploy_would_change_is_previewed_for_one_who_may_not_deploy() -> None:
    reply = plan("что изменится на проде, если выкатить Energy KPIs?", role=Role.analyst)
    name, args = call(reply)
    assert name == "preview_migration"
    assert (args["dashboard_ids"], args["target_env_id"]) == ([6], "prod")


def test_the_latest_backup_is_restored_only_when_the_latest_is_said() -> None:
    name, args = call(plan("восстанови прод из последнего бэкапа", handed=TASKS, role=Role.admin))
    assert name == "restore_backup"
    assert (args["backup_id"], args["target_env_id"]) == (PROD_BACKUP, "prod")
    asked = plan("восстанови бэкап в прод", handed=TASKS, role=Role.admin)
    assert not asked.tool_calls  # which backup is the person's to say


def test_a_couple_of_rows_is_two() -> None:
    name, args = call(plan("дай пару строк из regions глянуть", role=Role.analyst))
    assert name == "superset_execute_sql"
    assert args["sql"].endswith('"regions" LIMIT 2')


def _ids(*titles: str) -> list[int]:
    return [n for n, spec in enumerate(DASHBOARDS, 1) if spec.title in titles]


@pytest.mark.parametrize(
    ("text", "titles"),
    [
        (
            "перекинь всё про продажи в стейдж",
            ("Продажи по регионам", "Regional Sales Trends", "Каналы продаж"),
        ),
        ("migrate all the weather boards to staging", ("Погода и нагрузка", "Weather Overview")),
    ],
)
def test_all_of_one_topic_moves_that_topic_s_dashboards_only(
    text: str, titles: tuple[str, ...]
) -> None:
    name, args = call(plan(text))
    assert name == "execute_migration"
    assert args["dashboard_ids"] == _ids(*titles)


def test_everything_but_one_leaves_that_one_out() -> None:
    name, args = call(plan("всё с дева в прод, кроме черновика"))
    draft = _ids("Прогноз нагрузки (черновик)")
    assert name == "execute_migration"
    assert args["dashboard_ids"] == [n for n in range(1, len(DASHBOARDS) + 1) if n not in draft]


def test_all_of_a_topic_no_title_is_about_moves_nothing_it_asks() -> None:
    reply = plan("перенеси все дашборды про футбол в стейдж")
    assert not reply.tool_calls  # never every dashboard for a topic it could not place
    assert "какие дашборды перенести?" in reply.text


def test_a_commit_of_a_dashboard_named_by_title_with_an_unquoted_message() -> None:
    name, args = call(plan("закоммить Weather Overview с сообщением обновил фильтры"))
    assert (name, args) == (
        "commit_changes",
        {"dashboard_ids": _ids("Weather Overview"), "message": "обновил фильтры"},
    )
    name, args = call(plan("закоммить все дашборды с сообщением nightly sync"))
    assert (args["dashboard_ids"], args["message"]) == (list(range(1, 14)), "nightly sync")


def test_who_may_see_a_dashboard_named_by_title_is_its_audit() -> None:
    reply = plan("кто имеет доступ к дашборду Customer Revenue?", role=Role.admin)
    name, args = call(reply)
    assert name == "superset_audit_permissions"
    assert args == {"object_type": "dashboard", "object_id": _ids("Customer Revenue")[0]}


def test_a_virtual_dataset_takes_the_name_said_before_its_query() -> None:
    text = "сделай виртуальный датасет weather_by_region из select region from weather_daily"
    name, args = call(plan(text, "dataset", "4"))
    assert name == "superset_create_dataset"
    assert (args["name"], args["sql"]) == ("weather_by_region", "select region from weather_daily")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("а что значит статус degraded?", "(degraded)"),
        ("что означает «в очереди»?", "(queued)"),
        ("what does failed mean?", "(failed)"),
        ("что вообще значит дрейф?", "Дрейф — расхождение"),
        ("chto takoe dreyf", "Дрейф — расхождение"),
        ("can you explain what a virtual dataset is?", "Виртуальный датасет — датасет"),
        ("что означает статус failed у миграции?", "(failed)"),
        ("what does 'queued' mean for a task?", "(queued)"),
    ],
)
def test_what_a_word_of_the_answers_means_is_said_in_words(text: str, said: str) -> None:
    reply = plan(text, "dashboard", "12")
    assert not reply.tool_calls
    assert said in reply.text


@pytest.mark.parametrize(
    ("text", "tool"),
    [("what is running on prod?", "list_tasks"), ("what's the drift on staging?", "get_drift")],
)
def test_a_question_that_goes_on_past_the_word_is_a_read_not_a_word_explained(
    text: str, tool: str
) -> None:
    assert call(plan(text))[0] == tool


@pytest.mark.parametrize("text", ["spasibo, vyruchil", "норм, пасиб", "got it, thanks"])
def test_thanks_in_any_spelling_run_nothing(text: str) -> None:
    reply = plan(text)
    assert not reply.tool_calls
    assert reply.text.startswith("Пожалуйста!")


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("кто и когда выкатывал Каналы продаж?", "Каналы продаж"),
        ("history of Customer Revenue", "Customer Revenue"),
    ],
)
def test_who_and_when_of_a_dashboard_named_away_from_its_page_is_its_timeline(
    text: str, title: str
) -> None:
    assert call(plan(text)) == ("get_dashboard_timeline", {"dashboard_id": _ids(title)[0]})


def test_what_failed_of_a_named_dashboard_stays_the_task_records() -> None:
    assert call(plan("почему упала выкатка Каналы продаж?"))[0] == "list_tasks"


@pytest.mark.parametrize(
    ("text", "role", "tool"),
    [
        ("откатись на вчерашний бэкап", Role.admin, "restore_backup"),  # a backup: its restore
        ("sdelaj bekap prodа", Role.admin, "run_backup"),  # «j» for «й»
        ("что Аня вчера деплоила?", Role.engineer, "list_tasks"),  # a deploy in the past
        ("перекати всё про погоду в стейдж", Role.engineer, "execute_migration"),
        ("is staging in sync w/ dev?", Role.engineer, "get_drift"),  # nothing named to move
    ],
)
def test_people_s_words_for_restores_backups_history_and_moves(
    text: str, role: Role, tool: str
) -> None:
    assert call(plan(text, role=role))[0] == tool


def test_the_page_s_dashboard_the_same_everywhere_is_its_drift() -> None:
    assert call(plan("этот дашборд везде одинаковый?", "dashboard", "6"))[0] == "get_drift"


def test_two_words_told_apart_are_both_explained() -> None:
    reply = plan("чем миграция отличается от выкатки?")
    assert not reply.tool_calls
    assert "Миграция — перенос нескольких" in reply.text
    assert "Выкатка — перенос одного" in reply.text


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ("заведи датасет на tariffs_legacy", {"table": "tariffs_legacy"}),
        ("register weather_daily as a dataset", {"table": "weather_daily"}),
        (
            "make a dataset from select region from regions and name it big_regions",
            {"sql": "select region from regions", "name": "big_regions"},
        ),
        (
            "сделай датасет top_regions: select region from sales_orders",
            {"sql": "select region from sales_orders", "name": "top_regions"},
        ),
        (
            "сделай виртуальный датасет «выручка по месяцам»: select 1",
            {"sql": "select 1", "name": "выручка по месяцам"},
        ),
    ],
)
def test_a_dataset_takes_its_table_or_its_query_and_name_as_people_say_them(
    text: str, args: dict[str, str]
) -> None:
    name, called_with = call(plan(text))
    assert name == "superset_create_dataset"
    assert {key: called_with.get(key) for key in args} == args


def test_a_write_not_done_from_this_page_says_where_to_ask_never_another_tool() -> None:
    reply = plan("сделай бэкап дева", "dashboard", "10", role=Role.admin)
    assert not reply.tool_calls  # not the dashboard's documentation, as it was
    assert "«Резервная копия окружения» не делается со страницы дашборда" in reply.text


def test_a_deploy_to_undo_named_by_its_dashboard_s_title_is_found_in_the_records() -> None:
    deploys = [
        ListedTask(
            id=task_id,
            kind="deploy",
            status="succeeded",
            env_id="staging",
            objects=[title],
            started_by="bo",
        )
        for task_id, title in (("e1" * 16, "Executive Summary"), ("f2" * 16, "Weather Overview"))
    ]
    handed = FLEET.model_copy(update={"tasks": deploys})
    reply = plan("roll back the Executive Summary deploy on staging", handed=handed)
    assert call(reply) == ("rollback_deploy", {"env_id": "staging", "task_id": "e1" * 16})


def test_a_check_asked_about_while_it_runs_is_its_task_s_status() -> None:
    running = ListedTask(
        id="a7" * 16, kind="validation", status="running", objects=["Customer Revenue"]
    )
    handed = FLEET.model_copy(update={"tasks": [running]})
    reply = plan("проверка Customer Revenue ещё идёт?", handed=handed, role=Role.analyst)
    assert call(reply) == ("get_task_status", {"task_id": "a7" * 16})
