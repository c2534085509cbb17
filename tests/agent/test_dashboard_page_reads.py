"""Issue 33 §1–§3 with no model: beside a dashboard, what its page shows is readable (deploy
history, versions, git, drift, rollback — each scoped to it), a question never starts a task or
gets a write card, and «откати…» there is the rollback of this dashboard's deploy.

Each planner case is phrased as a BI engineer or analyst would say it; the planner is handed a
fleet in which «Отчёт по энергопотреблению» (#10 in ss-dev) was deployed to prod twice, the
newer deploy rolled back.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from sstools.agent import fleet
from sstools.agent.context import UIContext, prompt_block, system_message
from sstools.agent.fleet import Fleet, Listed, ListedTask
from sstools.agent.invocation import Cleared, Refused
from sstools.agent.offline.answers import render
from sstools.agent.offline.planner import offline_planner
from sstools.agent.selection import HiddenBecause, select_tools
from sstools.agent.tools import CATALOGUE, CallScope
from sstools.auth.roles import Role
from tests.agent.conftest import DASHBOARD_PAGE, DASHBOARD_PAGE_READS, check_on_page

REPORT = "Отчёт по энергопотреблению"
OLDER, NEWER, UNDONE = "1" * 32, "2" * 32, "3" * 32
FLEET = Fleet(
    dashboards=[
        Listed(env_id="ss-dev", id=10, title=REPORT),
        Listed(env_id="prod", id=4, title=REPORT),
        Listed(env_id="ss-dev", id=6, title="Energy KPIs"),
    ],
    tasks=[  # newest first, as GET /api/tasks lists them
        ListedTask(id=UNDONE, kind="rollback", status="succeeded", env_id="prod", objects=[REPORT]),
        ListedTask(id=NEWER, kind="deploy", status="succeeded", env_id="prod", objects=[REPORT]),
        ListedTask(id="4" * 32, kind="deploy", status="succeeded", env_id="prod",
                   objects=["Energy KPIs"]),
        ListedTask(id=OLDER, kind="deploy", status="succeeded", env_id="prod", objects=[REPORT]),
    ],
    me="al",
)  # fmt: skip
PLANNER = offline_planner(["ss-dev", "staging", "prod"])
TASK_STARTERS = {name for name, tool in CATALOGUE.items() if tool.starts_task}


def _context(**page: Any) -> UIContext:
    return UIContext.model_validate({"contextVersion": 1, "route": "/", **page})


def plan(text: str, role: Role = Role.engineer, page: dict[str, Any] | None = None) -> AIMessage:
    context = _context(**(DASHBOARD_PAGE if page is None else page))
    offered = select_tools(role, context).offered
    bound = PLANNER.bind_tools([CATALOGUE[name].schema() for name in offered])
    system = fleet.hand(system_message(prompt_block(context), context), FLEET)
    reply = bound.invoke([system, HumanMessage(text)])
    assert isinstance(reply, AIMessage)
    return reply


def called(reply: AIMessage) -> tuple[str, dict[str, Any]]:
    assert reply.tool_calls, reply.text
    return reply.tool_calls[0]["name"], dict(reply.tool_calls[0]["args"])


# -- §3: offered beside a dashboard, scoped to it, the role still deciding -------------------------


@pytest.mark.parametrize("role", [Role.engineer, Role.admin])
def test_the_page_reads_are_offered_beside_a_dashboard_and_datasets_backups_are_not(
    role: Role,
) -> None:
    selection = select_tools(role, _context(**DASHBOARD_PAGE))
    assert set(selection.offered) >= DASHBOARD_PAGE_READS
    for name in ("superset_explore_database", "list_backups", "run_backup", "restore_backup"):
        assert name not in selection.offered


def test_an_analyst_reads_the_history_but_a_rollback_is_refused_at_both_layers() -> None:
    selection = select_tools(Role.analyst, _context(**DASHBOARD_PAGE))
    assert DASHBOARD_PAGE_READS - {"rollback_deploy"} <= set(selection.offered)
    assert selection.hidden["rollback_deploy"].reason is HiddenBecause.role
    verdict = check_on_page(
        Role.analyst, DASHBOARD_PAGE, "rollback_deploy", {"task_id": OLDER, "env_id": "prod"}
    )
    assert isinstance(verdict, Refused)
    assert "инженер" in verdict.message
    for name in ("list_tasks", "get_dashboard_timeline", "get_git_status", "get_drift"):
        assert isinstance(check_on_page(Role.analyst, DASHBOARD_PAGE, name), Cleared), name


def test_history_and_drift_beside_a_dashboard_ask_for_that_dashboard_only() -> None:
    page = CallScope(env_id="ss-dev", object_type=_context(**DASHBOARD_PAGE).object_type,
                     object_id=10)  # fmt: skip
    for name in ("list_tasks", "get_drift"):
        tool = CATALOGUE[name]
        assert tool.build is not None
        request = tool.build(tool.args_model.model_validate({}), page)
        assert request.params == {"dashboard_id": 10, "dashboard_env_id": "ss-dev"}, name
    timeline = CATALOGUE["get_dashboard_timeline"]
    assert timeline.build is not None
    request = timeline.build(timeline.args_model.model_validate({}), page)
    assert (request.path, request.params) == ("/api/dashboards/10/timeline", {"env_id": "ss-dev"})
    general = CallScope(env_id="ss-dev", object_type=None, object_id=None)
    tasks = CATALOGUE["list_tasks"]
    assert tasks.build is not None
    assert tasks.build(tasks.args_model.model_validate({}), general).params is None


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("кто последний раз выкатывал его в прод?", "list_tasks"),
        ("когда его последний раз деплоили", "list_tasks"),
        ("история выкаток этого дашборда", "list_tasks"),
        ("покажи историю версий", "get_dashboard_timeline"),
        ("какие версии этого дашборда есть?", "get_dashboard_timeline"),
        ("хронология изменений", "get_dashboard_timeline"),
        ("есть незакоммиченные изменения?", "get_git_status"),
        ("что не закоммичено по нему", "get_git_status"),
        ("есть ли расхождения с гитом?", "get_drift"),
        ("его правили руками в проде?", "get_drift"),
    ],
)
def test_what_the_page_shows_is_answered_by_its_read(text: str, tool: str) -> None:
    name, _ = called(plan(text, Role.analyst))
    assert name == tool


def test_who_deployed_it_to_prod_reads_the_history_of_prod() -> None:
    assert called(plan("кто последний раз выкатывал его в прод?")) == (
        "list_tasks",
        {"env_id": "prod"},
    )


def test_the_history_and_the_versions_read_with_who_and_where() -> None:
    history = render(
        "list_tasks",
        {"items": [{"id": OLDER, "kind": "deploy", "env_id": "prod", "status": "succeeded",
                    "started_by": "alice", "approved_by": "bob", "objects": [REPORT],
                    "created_at": "2026-12-01T10:00:00Z"}]},
    )  # fmt: skip
    assert "alice, одобрил(а) bob" in history
    assert "prod" in history
    versions = render(
        "get_dashboard_timeline",
        {"title": REPORT, "points": [
            {"kind": "snapshot", "when": "2026-12-01T10:00:00Z", "who": "alice",
             "label": "перед выкаткой", "env_id": "prod", "task_id": OLDER},
            {"kind": "git", "when": "2026-11-30T10:00:00Z", "who": "bob", "label": "KPI tiles"},
        ]},
    )  # fmt: skip
    assert "версий — 2" in versions
    assert "снимок перед выкаткой" in versions
    assert "коммит в git: KPI tiles" in versions
    assert "2026-12" not in versions  # dates in words


# -- §2: a question never starts a task nor gets a write card; a command its own kind -----------


@pytest.mark.parametrize(
    "text",
    [
        "какие графики на этом дашборде?",
        "покажи список графиков",
        "из каких чартов он состоит",
        "на каких датасетах он построен",
        "откуда он берёт данные?",
        "он проходил проверку?",
        "проверен ли он?",
        "были ли ошибки при последней проверке",
        "есть ли у него документация?",
        "чем прод отличается от дева по этому дашборду",
        "а в проде он такой же как в деве?",
        "отличается ли версия в проде?",
        "можно ли откатить прод?",
    ],
)
def test_a_question_starts_no_task_and_gets_no_write_card(text: str) -> None:
    reply = plan(text)
    for call in reply.tool_calls:
        tool = CATALOGUE[call["name"]]
        assert call["args"].get("dry_run") is True or call["name"] not in TASK_STARTERS, text
        assert tool.kind_for(tool.args_model.model_validate(call["args"])).value == "read", text


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("проверь его", "run_llm_validation"),
        ("проверь дашборд?", "run_llm_validation"),
        ("задокументируй его", "run_llm_documentation"),
    ],
)
def test_a_command_still_starts_its_task(text: str, tool: str) -> None:
    assert called(plan(text))[0] == tool


@pytest.mark.parametrize(
    "text",
    [
        "откати прод к предыдущей версии",
        "верни прод как было",
        "откати последнюю выкатку в прод",
        "откати его на проде",
    ],
)
def test_rollback_beside_a_dashboard_is_its_latest_deploy_not_yet_rolled_back(text: str) -> None:
    """The newer deploy was rolled back already: the older one is what is left to undo."""
    assert called(plan(text)) == ("rollback_deploy", {"task_id": OLDER, "env_id": "prod"})


def test_a_deploy_rolled_back_already_is_not_offered_again() -> None:
    reply = plan(f"откати выкатку {NEWER[:8]}", page={"envId": "ss-dev"})
    assert not reply.tool_calls
    assert "уже откачена" in reply.text


def test_a_question_about_rollback_is_its_plan() -> None:
    name, args = called(plan("что вернётся, если откатить прод?"))
    assert (name, args) == (
        "rollback_deploy",
        {"task_id": OLDER, "env_id": "prod", "dry_run": True},
    )
