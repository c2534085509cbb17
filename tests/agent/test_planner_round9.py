"""Issue 36, round 9: a conversation read as people hold it — a short reply after the agent asked
for something without a «?» («Нужно указать окружение.»), a pronoun or an ordinal for what the
agent's last answer named («кто им владеет», "restore it", «первую откати»), «теперь прод» after
an answer, «ну что, готово» while a task runs, a dashboard's numbers by its title, and a title's
own digits («Тарифы 2023») never read as a dashboard's number.

Planned as a turn of the chat plans it with no model
(:func:`tests.agent.test_planner_round6.asked`).
"""

from __future__ import annotations

import pytest

from sstools.agent.context import ObjectType
from sstools.agent.texts import answers as answer_texts
from sstools.agent.texts import offline as offline_texts
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role
from tests.agent.test_planner_round6 import asked

DEPLOY = "20261201abababababababababababab"  # a deploy to prod in the fleet's records
MIGRATION = "f3a81c5d7e2b4c6a9d0e1f2a3b4c5d6e"
FAILED = "a6d03e7b9c1f4e2d8a5b6c7d8e9f0a1b"
BACKUP = "prod.20261205T030000000000Z"


@pytest.mark.parametrize(
    ("first", "asked_for", "answer", "call"),
    [
        (
            "задеплой Energy KPIs",
            "Нужно указать окружение: staging или prod.",
            "prod",
            ("deploy_dashboard", {"dashboard_id": 6, "target_env_id": "prod"}),
        ),
        (
            "мигрируй Energy KPIs и Каналы продаж",
            "Укажите целевое окружение: staging или prod.",
            "в прод",
            ("execute_migration", {"target_env_id": "prod", "dashboard_ids": [6, 7]}),
        ),
        (
            "deploy Executive Summary",
            "Please specify the environment.",
            "staging pls",
            ("deploy_dashboard", {"dashboard_id": 2, "target_env_id": "staging"}),
        ),
    ],
)
def test_a_reply_after_the_agent_asked_without_a_question_mark_fills_the_slot(
    first: str, asked_for: str, answer: str, call: tuple[str, dict[str, object]]
) -> None:
    outcome = asked(answer, Role.engineer, earlier=(("user", first), ("assistant", asked_for)))
    assert outcome.calls == [call]


def test_a_statement_is_not_a_question_back() -> None:
    # «prod» after an answer that asked nothing is a request of its own: not a deploy.
    done = (("user", "задеплой Energy KPIs на стейдж"), ("assistant", "Готово: выкачен в staging."))
    assert "deploy_dashboard" not in {name for name, _ in asked("prod", earlier=done).calls}


@pytest.mark.parametrize(
    ("answer", "said", "role", "call"),
    [
        (
            "Нашёл «Отчёт по энергопотреблению» (id 10).",
            "кто им владеет",
            Role.analyst,
            ("get_health_summary", {"dashboard_id": 10}),
        ),
        (
            "Вот он: «Пиковые нагрузки», id 9 в ss-dev.",
            "покажи цифры с него",
            Role.analyst,
            ("get_dashboard_data", {"dashboard_id": 9}),
        ),
        (
            "«Тарифы 2023 (архив)» не опубликован; выкатку не запускал.",
            "ладно, тогда проверь его",
            Role.engineer,
            ("run_llm_validation", {"dashboard_id": 12}),
        ),
        (
            "Нашёл 2 дашборда: 1. «Продажи по регионам», 2. «Каналы продаж».",
            "второй — что с ним по здоровью",
            Role.analyst,
            ("get_health_summary", {"dashboard_id": 7}),
        ),
    ],
)
def test_a_pronoun_or_an_ordinal_is_the_dashboard_the_last_answer_named(
    answer: str, said: str, role: Role, call: tuple[str, dict[str, object]]
) -> None:
    earlier = (("user", "найди дашборд"), ("assistant", answer))
    assert asked(said, role, earlier=earlier).calls == [call]


def test_a_pronoun_is_the_task_or_the_backup_the_last_answer_named() -> None:
    deployed = (
        ("user", "кто деплоил Executive Summary"),
        ("assistant", f"Последний деплой — задача {DEPLOY}, engineer, 5 декабря, в prod."),
    )
    rolled = asked("откати эту выкатку", Role.engineer, earlier=deployed).calls
    assert [(name, args.get("task_id")) for name, args in rolled] == [("rollback_deploy", DEPLOY)]
    listed = (("user", "list backups of prod"), ("assistant", f"prod has one backup: {BACKUP}."))
    restored = asked("restore it", Role.admin, earlier=listed).calls
    assert [(name, args.get("backup_id")) for name, args in restored] == [
        ("restore_backup", BACKUP)
    ]
    two = (
        ("user", "что мигрировали вчера на стейдж"),
        ("assistant", f"Две миграции: 1) {MIGRATION} — успешно; 2) {FAILED} — упала."),
    )
    second = asked("почему вторая упала", Role.engineer, earlier=two).calls
    assert [(name, args.get("task_id")) for name, args in second] == [("get_task_status", FAILED)]


def test_beside_a_dashboard_a_pronoun_is_the_page_not_a_title_the_answer_named() -> None:
    earlier = (("user", "найди про погоду"), ("assistant", "Нашёл «Weather Overview» (id 8)."))
    outcome = asked("кто им владеет", Role.analyst, ObjectType.dashboard, earlier=earlier)
    assert outcome.calls == [("get_health_summary", {})]


def test_now_prod_after_an_answer_repeats_the_request_there() -> None:
    done = (
        ("user", "сделай бэкап стейджа"),
        ("assistant", "Готово: резервная копия staging сохранена и проверена."),
    )
    assert asked("теперь прод", Role.admin, earlier=done).calls == [
        ("run_backup", {"env_id": "prod"})
    ]
    read = (
        ("user", "как там Energy KPIs"),
        ("assistant", "«Energy KPIs» в ss-dev: изменён после релиза, графики грузятся."),
    )
    staging = asked("а тот что в стейдже", Role.analyst, earlier=read).calls
    assert [(name, args.get("env_id")) for name, args in staging] == [
        ("get_health_summary", "staging")
    ]


def test_nudges_said_together_ask_the_started_tasks_status() -> None:
    started = (("user", "проверь Customer Revenue"), ("assistant", f"Запущено: задача {DEPLOY}."))
    outcome = asked("ну что, готово", Role.analyst, earlier=started)
    assert outcome.calls == [("get_task_status", {"task_id": DEPLOY})]


def test_a_titles_digits_are_not_a_dashboards_number() -> None:
    outcome = asked("what's wrong with the tariffs 2023 dashboard", Role.analyst)
    assert outcome.calls == [("get_health_summary", {"dashboard_id": 12})]
    assert asked("какие цифры сейчас на Продажах по регионам", Role.analyst).calls == [
        ("get_dashboard_data", {"dashboard_id": 1})
    ]


def test_a_backup_ordered_object_first_is_refused_to_an_engineer() -> None:
    outcome = asked("бэкап сделай", Role.engineer)
    assert outcome.calls == []
    assert answer_texts.ROLE_NAMES["admin"] in outcome.text


@pytest.mark.parametrize(
    ("text", "call"),
    [
        (
            "Перенеси Каналы продаж и Customer Revenue на стейдж. Прод не трогай.",
            ("execute_migration", {"target_env_id": "staging", "dashboard_ids": [7, 11]}),
        ),
        (
            "deploy dashboard 6 to staging. dont touch prod",
            ("deploy_dashboard", {"dashboard_id": 6, "target_env_id": "staging"}),
        ),
    ],
)
def test_an_environment_said_not_to_touch_is_not_where_it_goes(
    text: str, call: tuple[str, dict[str, object]]
) -> None:
    assert asked(text, Role.engineer).calls == [call]


def test_where_a_backup_goes_is_the_place_said_with_into_not_a_later_mention() -> None:
    text = "restore prod.20261205T030000000000Z into staging, need prod data there"
    calls = asked(text, Role.admin).calls
    assert [(name, args.get("target_env_id")) for name, args in calls] == [
        ("restore_backup", "staging")
    ]


def test_a_search_keeps_the_dashboards_that_say_most_of_the_topic() -> None:
    outcome = asked("найди дашборд peak load", Role.analyst)
    assert outcome.calls == [("search_dashboards", {"dashboard_ids": [9]})]
    # One word of a topic still finds every title that says it.
    sales = asked("найди дашборды про продажи", Role.analyst).calls
    assert sales == [("search_dashboards", {"dashboard_ids": [1, 4, 7]})]


def test_a_query_typed_beside_a_dashboard_is_told_where_to_run() -> None:
    text = "run select region, sum(revenue_rub) from sales_orders group by region"
    outcome = asked(text, Role.analyst, ObjectType.dashboard)
    assert outcome.calls == []
    sql = CATALOGUE["superset_execute_sql"].title
    assert offline_texts.ELSEWHERE.format(tool=sql, page=offline_texts.PAGES["dashboard"]) in (
        outcome.text
    )


def test_where_is_the_board_about_a_topic_is_a_search() -> None:
    outcome = asked("где борд с погодой?", Role.engineer)
    assert outcome.calls == [("search_dashboards", {"dashboard_ids": [3, 8]})]


@pytest.mark.parametrize(
    "text",
    [
        "почему на графике выручки провал в марте?",
        "почему температура по неделям так скачет",
        "почему выручка тут выше, чем на проде?",
    ],
)
def test_a_question_about_the_charts_values_reads_the_dashboards_numbers(text: str) -> None:
    calls = asked(text, Role.analyst, ObjectType.dashboard).calls
    assert [name for name, _ in calls] == ["get_dashboard_data"]


def test_this_dashboard_against_git_is_its_drift() -> None:
    text = "Prod is frozen till Monday. Just tell me whether this one is in sync with git."
    calls = asked(text, Role.engineer, ObjectType.dashboard).calls
    assert [name for name, _ in calls] == ["get_drift"]
    assert [name for name, _ in asked("dev vs git, что разъехалось", Role.engineer).calls] == [
        "get_drift"
    ]


def test_then_show_what_would_change_after_a_refusal_is_the_earlier_requests_preview() -> None:
    refused = (
        ("user", "задеплой Energy KPIs на прод"),
        ("assistant", "Недостаточно прав: выкатывать может инженер."),
    )
    outcome = asked("ну тогда хотя бы покажи что изменится", Role.analyst, earlier=refused)
    assert outcome.calls == [("preview_migration", {"target_env_id": "prod", "dashboard_ids": [6]})]


@pytest.mark.parametrize(
    ("text", "term"),
    [("что такое дрейф окружения", "drift"), ("what is environment drift", "drift")],
)
def test_a_concept_with_whose_it_is_is_still_explained(text: str, term: str) -> None:
    outcome = asked(text, Role.analyst)
    assert outcome.calls == []
    assert offline_texts.MEANINGS[term] in outcome.text


def test_an_analysts_put_it_on_prod_is_refused_naming_the_engineer() -> None:
    outcome = asked("поставь его на прод", Role.analyst, ObjectType.dashboard)
    assert outcome.calls == []
    assert answer_texts.ROLE_NAMES["engineer"] in outcome.text


def test_does_a_role_see_this_dashboard_is_its_permission_audit() -> None:
    text = "проверь, видит ли роль energy_viewers этот дашборд"
    calls = asked(text, Role.engineer, ObjectType.dashboard).calls
    assert [name for name, _ in calls] == ["superset_audit_permissions"]


def test_a_release_check_that_prod_is_as_staging_is_the_drift() -> None:
    text = "Завтра релиз. Проверь, что на проде всё как в стейдже."
    calls = asked(text, Role.engineer).calls
    assert calls == [("get_drift", {"env_id": "prod"})]


def test_a_tables_columns_asked_beside_a_dashboard_are_told_where_to_ask() -> None:
    outcome = asked(
        "какие колонки есть в таблице sales_orders?", Role.analyst, ObjectType.dashboard
    )
    assert outcome.calls == []
    explore = CATALOGUE["superset_explore_database"].title
    assert offline_texts.ELSEWHERE.format(tool=explore, page=offline_texts.PAGES["dashboard"]) in (
        outcome.text
    )


def test_a_title_after_the_word_dashboard_is_not_a_search_by_its_first_letters() -> None:
    # «дашборд по…» searches; «дашборд Погода и нагрузка» names one dashboard.
    outcome = asked("дашборд Погода и нагрузка опубликован?", Role.analyst)
    assert outcome.calls == [("get_health_summary", {"dashboard_id": 3})]
    assert [name for name, _ in asked("дашборды по погоде", Role.analyst).calls] == [
        "search_dashboards"
    ]
