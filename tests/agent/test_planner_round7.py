"""Issue 36, round 7: what the fifth tuning set's writer said and the planner missed — a read the
page has no tool for (the backups, the tasks, the branches beside a dashboard), an analyst's
what-if beside a dashboard, a polite order, a deploy back to what git holds, who owns a dashboard,
and a sum "broken down by" a column.

Planned as a turn of the chat plans it with no model
(:func:`tests.agent.test_planner_round6.asked`).
"""

from __future__ import annotations

import pytest

from sstools.agent.context import ObjectType
from sstools.agent.fleet import ListedTask
from sstools.agent.offline.intent import intents
from sstools.agent.texts import offline as offline_texts
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role
from tests.agent.test_planner_names import FLEET
from tests.agent.test_planner_round6 import asked


def told_where(tool: str, page: ObjectType) -> str:
    return offline_texts.ELSEWHERE.format(
        tool=CATALOGUE[tool].title, page=offline_texts.PAGES[page.value]
    )


@pytest.mark.parametrize(
    ("text", "role", "page", "tool"),
    [
        ("бэкапы есть?", Role.analyst, ObjectType.dashboard, "list_backups"),
        ("какие ветки щас есть в репе", Role.engineer, ObjectType.dashboard, "list_branches"),
        ("pokazhi okruzheniya", Role.engineer, ObjectType.dashboard, "list_environments"),
        ("what's running right now", Role.engineer, ObjectType.dataset, "list_tasks"),
        ("что на проде поменяли руками мимо гита", Role.admin, ObjectType.dataset, "get_drift"),
    ],
)
def test_a_read_the_page_has_no_tool_for_is_told_where_to_ask(
    text: str, role: Role, page: ObjectType, tool: str
) -> None:
    """Not answered with a neighbour («бэкапы есть?» is not the dashboard's version history)."""
    outcome = asked(text, role, page)
    assert outcome.calls == []
    assert told_where(tool, page) in outcome.text


def test_the_pages_own_dashboard_named_in_a_backup_question_reads_its_versions() -> None:
    outcome = asked("в каких бэкапах есть этот дашборд?", Role.admin, ObjectType.dashboard)
    assert outcome.first_tool == "get_dashboard_timeline"


@pytest.mark.parametrize(
    "text",
    [
        "что изменится на стейдже если перенести туда мониторинг сетей",
        "а что поменяется на проде, если это туда перенести? я просто посмотреть",
    ],
)
def test_an_analysts_what_if_beside_a_dashboard_is_the_preview_not_a_refusal(text: str) -> None:
    """The preview is a read an analyst may ask for (in the general chat); moving is not theirs,
    and the reply says both."""
    outcome = asked(text, Role.analyst, ObjectType.dashboard)
    assert outcome.calls == []
    assert told_where("preview_migration", ObjectType.dashboard) in outcome.text
    assert outcome.refused_naming(Role.engineer)
    # The order itself is still refused naming the role that may move it.
    assert asked("перенеси его на стейдж", Role.analyst, ObjectType.dashboard).refused_naming(
        Role.engineer
    )


def test_a_polite_order_with_a_question_mark_is_the_order() -> None:
    outcome = asked(
        "Could you please promote the Weather Overview dashboard to production when you get "
        "a chance? Thanks!",
        page=ObjectType.dashboard,
    )
    assert outcome.calls == [("deploy_dashboard", {"target_env_id": "prod", "dashboard_id": 8})]


def test_back_to_what_git_holds_is_a_deploy_from_git() -> None:
    outcome = asked("put this board on prod back to what's in git main", page=ObjectType.dashboard)
    assert outcome.calls == [("deploy_dashboard", {"target_env_id": "prod", "git_ref": "main"})]


def test_who_owns_it_and_who_touched_it_last_is_its_summary() -> None:
    outcome = asked(
        "кто владелец у этого борда и когда его последний раз трогали", page=ObjectType.dashboard
    )
    assert outcome.first_tool == "get_health_summary"
    # Who changed it, asked alone, is its version history.
    assert asked("кто правил этот дашборд", page=ObjectType.dashboard).first_tool == (
        "get_dashboard_timeline"
    )


def test_broken_down_by_a_column_is_not_what_broke() -> None:
    """«broken down by sector» asks for a sum by a column, not the tasks that failed."""
    assert "tasks_list" not in intents("what was the total consumption, broken down by sector?")
    assert "tasks_list" in intents("what broke last night?")
    outcome = asked("what broke last night?", Role.engineer)
    assert outcome.first_tool == "list_tasks"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("need a branch hotfix/exec-summary-css", "hotfix/exec-summary-css"),
        ("открой ветку под задачу: JIRA-123-energy", "JIRA-123-energy"),
    ],
)
def test_asking_for_a_branch_is_creating_it(text: str, name: str) -> None:
    """Not the branches' list, which a dashboard's page does not offer."""
    outcome = asked(text, page=ObjectType.dashboard)
    assert outcome.calls == [("create_branch", {"name": name})]


def test_deploy_history_is_the_records_not_a_deploy() -> None:
    assert asked("deploy history of this board", page=ObjectType.dashboard).first_tool == (
        "list_tasks"
    )


def test_how_last_nights_backup_went_is_its_task_in_the_environment_named() -> None:
    prod_backup = ListedTask(
        id="b8c52f0e1d3a4b7c9e6f7a8b9c0d1e2f", kind="backup", status="failed", env_id="prod"
    )
    with_prod = FLEET.model_copy(update={"tasks": [*FLEET.tasks, prod_backup]})
    outcome = asked("ночной бэкап прода прошёл нормально?", Role.admin, handed=with_prod)
    assert outcome.calls == [("get_task_status", {"task_id": prod_backup.id})]
    # With only ss-dev's backup on record, prod's is not answered with it.
    only_dev = asked("ночной бэкап прода прошёл нормально?", Role.admin)
    assert ("get_task_status", {"task_id": "9" * 32}) not in only_dev.calls


def test_an_imperative_with_its_last_letter_left_off_is_still_the_order() -> None:
    outcome = asked("сдела бекап прода пжлст", Role.admin)
    assert outcome.calls == [("run_backup", {"env_id": "prod"})]


# -- the sixth tuning set (round 6, written after the changes above) ------------------------------


@pytest.mark.parametrize(
    ("text", "page", "tool"),
    [
        ("кто овнер у этого отчета и когда его последний раз правили", ObjectType.dashboard,
         "get_health_summary"),
        ("what's the state of Customer Revenue rn", None, "get_health_summary"),
        ("show me all dashboards on prod", None, "search_dashboards"),
        ("why is revenue so low here? show me the actual values", ObjectType.dashboard,
         "get_dashboard_data"),
    ],
)  # fmt: skip
def test_everyday_reads_said_loosely(text: str, page: ObjectType | None, tool: str) -> None:
    assert asked(text, Role.analyst, page).first_tool == tool


def test_an_analysts_deploy_what_if_says_both_the_role_and_the_preview() -> None:
    outcome = asked(
        "what would change in prod if this got deployed?", Role.analyst, ObjectType.dashboard
    )
    assert outcome.refused_naming(Role.engineer)  # deploying is not theirs
    assert told_where("preview_migration", ObjectType.dashboard) in outcome.text  # the preview is


def test_can_i_asked_of_a_write_the_role_lacks_names_the_role() -> None:
    assert asked("can I back up prod?", Role.engineer).refused_naming(Role.admin)


_MY_CHECK = ListedTask(
    id="c41e7a90d2b84f1e9a3567d0b1f2e3a4", kind="validation", status="running", env_id="ss-dev",
    started_by="analyst",
)  # fmt: skip
_NETWORK_DOCS = _MY_CHECK.model_copy(
    update={"id": "d95b2c31e8f04a7c8b6e1f2a3c4d5e6f", "kind": "documentation",
            "status": "succeeded", "started_by": "engineer"}
)  # fmt: skip


@pytest.mark.parametrize(
    ("text", "task"),
    [("как там моя проверка", _MY_CHECK), ("дока по мониторингу сетей готова уже?", _NETWORK_DOCS)],
)
def test_is_what_i_started_ready_is_its_task(text: str, task: ListedTask) -> None:
    records = FLEET.model_copy(update={"tasks": [*FLEET.tasks, _MY_CHECK, _NETWORK_DOCS]})
    outcome = asked(text, Role.analyst, handed=records)
    assert outcome.calls == [("get_task_status", {"task_id": task.id})]


def test_how_is_a_named_dashboard_is_its_summary() -> None:
    outcome = asked("как там дашборд energy kpis", Role.analyst)
    assert outcome.calls == [("get_health_summary", {"dashboard_id": 6})]


@pytest.mark.parametrize("text", ["как там выкатка?", "как там миграция на стейдж"])
def test_how_is_a_deploy_going_is_its_task_not_a_refused_deploy(text: str) -> None:
    """An analyst asking after a deploy is not told they may not deploy."""
    records = FLEET.model_copy(update={"tasks": [*FLEET.tasks, _MY_CHECK]})
    outcome = asked(text, Role.analyst, handed=records)
    status = CATALOGUE["get_task_status"].title
    # Its status, or which task, when the records hold no such one (no migration here).
    assert outcome.first_tool == "get_task_status" or (
        not outcome.calls and outcome.text.startswith(f"«{status}»")
    )
    assert not outcome.refused_naming(Role.engineer)
