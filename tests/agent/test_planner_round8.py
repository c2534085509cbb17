"""Issue 36, round 8: what the two newest tuning sets' writers said and the planner missed — a
newcomer's thanks or a message sent by mistake, a concept asked in plain words, «ну и?» while a
task runs, the polite forms of an order («можешь снять копию?», «сохрани резервную копию»), the
symptom instead of the operation («правки не попали в репозиторий», «правили руками в обход
процесса»), a dashboard the person cannot find, and the first few rows of a dataset.

Planned as a turn of the chat plans it with no model
(:func:`tests.agent.test_planner_round6.asked`).
"""

from __future__ import annotations

import pytest

from sstools.agent.context import ObjectType
from sstools.agent.texts import offline as offline_texts
from sstools.auth.roles import Role
from tests.agent.test_planner_round6 import asked
from tests.agent.test_planner_round7 import told_where

STARTED = "c41e7a90d2b84f1e9a3567d0b1f2e3a4"


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Спасибо большое, ты очень выручил!", offline_texts.SMALL_TALK),
        ("ok cool, that's all for now, thanks a lot", offline_texts.SMALL_TALK),
        ("sorry, wrong window 🙈", offline_texts.SMALL_TALK_SORRY),
        ("ой, не туда", offline_texts.SMALL_TALK_SORRY),
    ],
)
def test_thanks_and_a_message_sent_by_mistake_run_nothing(text: str, answer: str) -> None:
    outcome = asked(text, Role.analyst, ObjectType.dashboard)
    assert outcome.calls == []
    assert answer in outcome.text


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("а что такое датасет простыми словами? я из финансов, не очень понимаю", "dataset"),
        ("what does 'drift' even mean here? people keep saying it at standup", "drift"),
        ("Зачем вообще делать бэкапы, если всё и так лежит в гите?", "backup"),
        ("в чем разница между стейджем и продом", "environments"),
        ("what does published mean for a dashboard", "published"),
        ("virtual vs physical dataset — what's the difference?", "virtual_dataset"),
    ],
)
def test_a_concept_asked_in_plain_words_is_explained_not_looked_up(text: str, term: str) -> None:
    outcome = asked(text, Role.analyst, ObjectType.dataset)
    assert outcome.calls == []
    assert offline_texts.MEANINGS[term] in outcome.text


def test_a_nudge_after_a_started_task_asks_its_status() -> None:
    started = (
        ("user", "проверь дашик Customer Revenue на деве"),
        ("assistant", f"Запустил проверку дашборда «Customer Revenue», задача {STARTED}."),
    )
    outcome = asked("ну и?", Role.analyst, earlier=started)
    assert outcome.calls == [("get_task_status", {"task_id": STARTED})]
    # With nothing started, the nudge starts nothing either: the check is not run again.
    assert "run_llm_validation" not in {name for name, _ in asked("ну и?", Role.analyst).calls}


def test_and_for_prod_too_repeats_the_read_there() -> None:
    listed = (
        ("user", "покажи бэкапы стейджа"),
        ("assistant", "В staging один бэкап: staging.20261205T023000000000Z."),
    )
    outcome = asked("и для прода тоже глянь", Role.admin, earlier=listed)
    assert outcome.calls == [("list_backups", {"env_id": "prod"})]


@pytest.mark.parametrize(
    ("text", "role", "page", "call"),
    [
        (
            "Сохрани, пожалуйста, резервную копию стейджа — мы там завтра будем много чего менять",
            Role.admin,
            None,
            ("run_backup", {"env_id": "staging"}),
        ),
        (
            "Есть ли у этого дашборда правки, которые ещё не попали в репозиторий?",
            Role.engineer,
            ObjectType.dashboard,
            ("get_git_status", {}),
        ),
        (
            "Кажется, кто-то правил дашборды на проде руками, в обход процесса. Можно это увидеть?",
            Role.engineer,
            None,
            ("get_drift", {"env_id": "prod"}),
        ),
        (
            "Напомни, пожалуйста, как называются все наши ветки? Ищу ту, где релизная версия",
            Role.engineer,
            None,
            ("list_branches", {}),
        ),
        (
            "позавчера кто-то что-то менял на стейдже, можно посмотреть, что именно запускали?",
            Role.analyst,
            None,
            ("list_tasks", {"env_id": "staging"}),
        ),
        ("чекни health этого борда плз", Role.engineer, ObjectType.dashboard, None),
    ],
)
def test_the_symptom_or_the_polite_form_is_the_operation_meant(
    text: str, role: Role, page: ObjectType | None, call: tuple[str, dict[str, object]] | None
) -> None:
    outcome = asked(text, role, page)
    if call is None:  # the dashboard's state, not a check task started
        assert outcome.first_tool == "get_health_summary"
    else:
        assert outcome.calls[:1] == [call]


@pytest.mark.parametrize(
    "text",
    [
        "можешь снять резервную копию стейджа?",
        "Мне кажется, на всякий случай стоит сделать бэкап прода. Сделаешь?",
    ],
)
def test_a_backup_asked_politely_by_an_analyst_is_refused_naming_the_admin(text: str) -> None:
    assert asked(text, Role.analyst).refused_naming(Role.admin)


def test_a_dashboard_the_person_cannot_find_is_searched_for() -> None:
    outcome = asked(
        "Коллега упомянул дашборд «Региональные тренды продаж», а я не могу его найти. Где он?",
        Role.analyst,
    )
    assert outcome.first_tool == "search_dashboards"


def test_the_branches_of_the_repository_beside_a_dashboard_are_asked_elsewhere() -> None:
    """«с дашбордами» speaks of them all: not this dashboard's versions."""
    outcome = asked("а какие ветки сейчас есть в репозитории с дашбордами?", Role.analyst,
                    ObjectType.dashboard)  # fmt: skip
    assert outcome.calls == []
    assert told_where("list_branches", ObjectType.dashboard) in outcome.text


def test_a_what_if_for_every_dashboard_is_the_migrations_preview() -> None:
    outcome = asked(
        "Хочу оценить, что будет, если все дашборды из дева разом переехать на стейдж. "
        "Пока ничего не трогай, только покажи",
        page=ObjectType.migration,
    )
    assert outcome.first_tool == "preview_migration"
    assert outcome.calls[0][1]["target_env_id"] == "staging"


def test_the_first_few_rows_are_five_rows_of_the_pages_dataset() -> None:
    outcome = asked(
        "Could you pull the first few rows so I can see what this data looks like?",
        Role.analyst,
        ObjectType.dataset,
        object_id="2",
    )
    assert outcome.first_tool == "superset_execute_sql"
    assert str(outcome.calls[0][1]["sql"]).endswith("LIMIT 5")


def test_an_order_to_ship_this_version_is_the_deploy_not_its_versions() -> None:
    outcome = asked("закинь эту версию на продакшн, очень надо к утру", Role.analyst,
                    ObjectType.dashboard)  # fmt: skip
    assert outcome.refused_naming(Role.engineer)
    outcome = asked("закинь эту версию на продакшн, очень надо к утру", Role.engineer,
                    ObjectType.dashboard)  # fmt: skip
    assert outcome.first_tool == "deploy_dashboard"


def test_a_query_pasted_after_the_question_back_is_formatted_not_run() -> None:
    """«выровняй запрос» → «какой запрос?» → the query: formatting it was asked, not running it."""
    question = asked("выровняй запрос", Role.analyst, ObjectType.dataset)
    assert question.calls == []
    sql = "select order_id, region, quantity from sales_orders where quantity > 10 order by 1"
    outcome = asked(
        sql,
        Role.analyst,
        ObjectType.dataset,
        earlier=(("user", "выровняй запрос"), ("assistant", question.text)),
    )
    assert outcome.first_tool == "superset_format_sql"
    assert outcome.calls[0][1]["sql"] == sql


def test_a_name_given_alone_after_the_question_back_names_the_branch() -> None:
    question = asked("сделай мне ветку", page=ObjectType.dashboard)
    assert question.calls == []
    outcome = asked(
        "q1-budget-review",
        page=ObjectType.dashboard,
        earlier=(("user", "сделай мне ветку"), ("assistant", question.text)),
    )
    assert outcome.calls == [("create_branch", {"name": "q1-budget-review"})]


def test_a_query_sent_in_one_line_is_formatted_not_read_as_rows_asked_for() -> None:
    """«одной строкой» says how the query came, not how many rows to show."""
    outcome = asked(
        "Коллега прислал мне запрос одной строкой. Можешь сделать его читаемым? "
        "select region, sum(revenue_rub) from sales_orders group by region",
        Role.analyst,
        ObjectType.dataset,
        object_id="3",
    )
    assert outcome.first_tool == "superset_format_sql"


def test_both_after_a_question_listing_two_dashboards_moves_both() -> None:
    listed = (
        ("user", "migrate the weather dashboards"),
        ("assistant", "Which ones — «Погода и нагрузка» (3), «Weather Overview» (8) or both?"),
    )
    outcome = asked("both, to staging", earlier=listed)
    assert outcome.first_tool == "execute_migration"
    assert outcome.calls[0][1]["target_env_id"] == "staging"
    assert outcome.calls[0][1]["dashboard_ids"] in ([3, 8], [8, 3])
