"""Issue 36, round 6: what the fourth and fifth tuning sets' writers said and the planner missed —
a permission question beside a dashboard, slips of the keyboard, how a thing works, an order
that mentions what failed, a yes to what the question back named, a pick with a request of its
own, and which Superset release an environment runs.

Each request is planned as a turn of the chat plans it with no model: the router over what the
page and the role allow, the role's prompt (so a refusal names the role), the sandbox's fleet
handed beside it (:mod:`tests.agent.test_planner_names`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from sstools.agent import fleet, prompt
from sstools.agent.context import ObjectType, UIContext
from sstools.agent.fleet import Fleet
from sstools.agent.routing import tool_router
from sstools.agent.selection import Ranker, routing_text, select_tools
from sstools.agent.texts import answers as answer_texts
from sstools.agent.texts import offline as offline_texts
from sstools.agent.tools import CATALOGUE, CallScope
from sstools.agent.tools.datasets import AuditArgs, superset_audit_permissions
from sstools.auth.roles import Role
from sstools.config import Settings
from tests.agent.conftest import ENVS
from tests.agent.test_planner_names import DEPLOY, FLEET, PLANNER


@dataclass(frozen=True)
class Outcome:
    reply: AIMessage

    @property
    def calls(self) -> list[tuple[str, dict[str, object]]]:
        return [(call["name"], dict(call["args"])) for call in self.reply.tool_calls]

    @property
    def first_tool(self) -> str | None:
        return self.calls[0][0] if self.calls else None

    @property
    def text(self) -> str:
        return self.reply.text

    def refused_naming(self, role: Role) -> bool:
        return not self.calls and answer_texts.ROLE_NAMES[role.value] in self.text.casefold()


@cache
def _router() -> Ranker | None:
    defaults = Settings.model_fields
    return tool_router(defaults["router"].default, defaults["router_k"].default)


def asked(
    text: str,
    role: Role = Role.engineer,
    page: ObjectType | None = None,
    *,
    earlier: tuple[tuple[str, str], ...] = (),
    object_id: str = "10",
    handed: Fleet = FLEET,
) -> Outcome:
    context = UIContext.model_validate(
        {
            "contextVersion": 1,
            "objectType": page.value if page else None,
            "objectId": object_id if page else None,
            "envId": "ss-dev",
            "route": "/",
        }
    )
    history: list[BaseMessage] = [
        HumanMessage(said) if who == "user" else AIMessage(said) for who, said in earlier
    ]
    message = routing_text([*history, HumanMessage(text)], context)
    selection = select_tools(role, context, message=message, router=_router())
    system = prompt.system_prompt(ENVS, context, selection, role)
    system = fleet.hand(system, handed.model_copy(update={"me": role.value}))
    bound = PLANNER.bind_tools([CATALOGUE[name].schema() for name in selection.offered])
    reply = bound.invoke([system, *history, HumanMessage(text)])
    assert isinstance(reply, AIMessage)
    return Outcome(reply)


def test_who_can_open_this_dashboard_is_the_dashboards_permission_audit() -> None:
    outcome = asked("кто может открыть этот дашборд?", Role.analyst, ObjectType.dashboard)
    assert outcome.calls == [("superset_audit_permissions", {"object_type": "dashboard"})]
    # With no type named, the audit reads the page's object: this dashboard, not a dataset.
    scope = CallScope(env_id="ss-dev", object_type=ObjectType.dashboard, object_id=10)
    request = superset_audit_permissions(AuditArgs(), scope)
    assert request.params == {"env_id": "ss-dev", "object_type": "dashboard", "object_id": 10}
    on_a_dataset = CallScope(env_id="ss-dev", object_type=ObjectType.dataset, object_id=3)
    dataset_request = superset_audit_permissions(AuditArgs(), on_a_dataset)
    assert dataset_request.params is not None
    assert dataset_request.params["object_type"] == "dataset"


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("сдлеай ветку feature/energy", "create_branch"),
        ("пеернеси Energy KPIs на стейдж", "execute_migration"),
        ("вкыати Energy KPIs в стейдж", "deploy_dashboard"),
    ],
)
def test_a_slip_of_the_keyboard_in_the_verb_is_still_the_order(text: str, tool: str) -> None:
    assert asked(text).first_tool == tool


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("как работает откат", "rollback"),
        ("how does a migration work?", "migration"),
        ("зачем нужен бэкап", "backup"),
    ],
)
def test_how_a_thing_works_is_explained_in_words(text: str, term: str) -> None:
    outcome = asked(text, Role.analyst)
    assert outcome.calls == []
    assert offline_texts.MEANINGS[term] in outcome.text


def test_an_order_that_mentions_what_failed_is_the_order() -> None:
    outcome = asked("перенеси мониторинг сетей на стейдж ещё раз, вчера же упало")
    assert outcome.first_tool == "execute_migration"
    assert outcome.calls[0][1]["target_env_id"] == "staging"
    # With no order in it, the same words are the records.
    assert asked("вчера миграция на стейдж упала, почему?").first_tool == "list_tasks"


@pytest.mark.parametrize("text", ["раскати стейдж из бэкапа", "подними прод из бэкапа"])
def test_back_from_a_backup_is_a_restore_whatever_the_verb(text: str) -> None:
    restore = CATALOGUE["restore_backup"].title
    assert restore in asked(text, Role.admin).text  # which backup: asked back
    assert asked(text).refused_naming(Role.admin)


def test_an_english_backup_order_is_a_backup() -> None:
    assert asked("backup staging pls", Role.admin).calls == [("run_backup", {"env_id": "staging"})]
    assert asked("backup staging pls", Role.analyst).refused_naming(Role.admin)


def test_which_superset_release_is_the_environments_not_a_dashboards_versions() -> None:
    assert asked("на какой версии суперсета прод?", Role.analyst).first_tool == (
        "list_environments"
    )
    beside = asked("какая версия superset на проде?", Role.analyst, ObjectType.dashboard)
    title = CATALOGUE["list_environments"].title
    page = offline_texts.PAGES["dashboard"]
    assert beside.text.endswith(offline_texts.ELSEWHERE.format(tool=title, page=page))
    versions = asked("покажи версии дашборда", Role.analyst, ObjectType.dashboard)
    assert versions.first_tool == "get_dashboard_timeline"


def test_yes_to_a_deploy_the_question_named_rolls_that_one_back() -> None:
    question = f"Последняя выкатка — «Energy KPIs» на prod (задача {DEPLOY[:10]}…). Откатить её?"
    outcome = asked("да, её", earlier=(("user", "откати выкатку"), ("assistant", question)))
    assert outcome.calls[0][0] == "rollback_deploy"
    assert outcome.calls[0][1]["task_id"] == DEPLOY
    # A yes to a question that named nothing fills nothing.
    vague = asked("да", earlier=(("user", "откати выкатку"), ("assistant", "Какую выкатку?")))
    assert not vague.calls


def test_a_pick_with_a_request_of_its_own_is_about_the_choice() -> None:
    question = "Нашёл три: «Продажи по регионам», «Regional Sales Trends», «Каналы продаж». Какой?"
    outcome = asked(
        "второй, расскажи про него",
        Role.analyst,
        earlier=(("user", "найди дашборды про продажи"), ("assistant", question)),
    )
    assert outcome.first_tool == "get_health_summary"
    assert outcome.calls[0][1]["dashboard_id"] == 4  # «Regional Sales Trends» in ss-dev


def test_a_new_tables_dataset_lives_in_the_schema_its_database_uses() -> None:
    outcome = asked("зарегай tariffs_legacy датасетом, плиз")
    assert outcome.calls == [
        (
            "superset_create_dataset",
            {"database_id": 1, "table": "tariffs_legacy", "schema_name": "main"},
        )
    ]


def test_tables_of_a_schema_are_read_in_the_one_database_there_is() -> None:
    outcome = asked("какие таблицы лежат в схеме main?")
    assert outcome.calls == [
        ("superset_explore_database", {"schema_name": "main", "database_id": 1})
    ]


def test_what_lags_behind_another_environment_is_the_one_asked_about() -> None:
    outcome = asked("что на проде отстаёт от стейджа?")
    assert outcome.calls == [("get_drift", {"env_id": "prod"})]
