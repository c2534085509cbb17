"""The offline planner: picks an offered tool, fills its arguments, renders the result."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from sstools.agent.context import UIContext, prompt_block, system_message
from sstools.agent.offline.planner import offline_planner
from sstools.agent.selection import select_tools
from sstools.agent.texts import OFFLINE_PREFIX
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role

PLANNER = offline_planner(["ss-dev", "staging", "prod"])


def _plan(text: str, object_type: str | None, role: Role = Role.engineer) -> AIMessage:
    context = UIContext.model_validate(
        {
            "contextVersion": 1,
            "objectType": object_type,
            "objectId": "10" if object_type else None,
            "envId": "ss-dev",
            "route": "/",
        }
    )
    offered = select_tools(role, context).offered
    bound = PLANNER.bind_tools([CATALOGUE[name].schema() for name in offered])
    reply = bound.invoke([system_message(prompt_block(context), context), HumanMessage(text)])
    assert isinstance(reply, AIMessage)
    return reply


@pytest.mark.parametrize(
    ("text", "object_type", "tool", "args"),
    [
        ("расскажи про этот дашборд", "dashboard", "get_health_summary", {"detail": True}),
        ("какой статус?", "dashboard", "get_health_summary", {}),
        ("найди дашборды про энергию", "dashboard", "search_dashboards", {"query": "энергию"}),
        ("выкати его на prod", "dashboard", "deploy_dashboard", {"target_env_id": "prod"}),
        (
            "разверни этот дашборд в prod",
            "dashboard",
            "deploy_dashboard",
            {"target_env_id": "prod"},
        ),
        (
            "откати выкатку 0123456789abcdef0123456789abcdef в prod",
            None,
            "rollback_deploy",
            {"task_id": "0123456789abcdef0123456789abcdef", "env_id": "prod"},
        ),
        ("кто имеет доступ?", "dataset", "superset_audit_permissions", {}),
        (
            "выполни `delete from t where a > 100`",
            "dataset",
            "superset_execute_sql",
            {"sql": "delete from t where a > 100", "database_id": 1},
        ),
        (
            "в базе 3 выполни `select 1`",
            "dataset",
            "superset_execute_sql",
            {"sql": "select 1", "database_id": 3},
        ),
        ("что ты умеешь?", None, "show_capabilities", {}),
    ],
)
def test_planner_picks_an_offered_tool_and_fills_its_arguments(
    text: str, object_type: str | None, tool: str, args: dict[str, Any]
) -> None:
    reply = _plan(text, object_type)
    assert [(call["name"], call["args"]) for call in reply.tool_calls] == [(tool, args)]


@pytest.mark.parametrize("role", list(Role))
@pytest.mark.parametrize("object_type", ["dashboard", "dataset", "migration", None])
@pytest.mark.parametrize(
    "text",
    [
        "выкати на prod",
        "сделай бэкап",
        "выполни `delete from t`",
        "создай ветку feature/x",
        "создай датасет",
        "мигрируй на staging",
        "что ты умеешь?",
    ],
)
def test_planner_never_picks_what_is_not_offered(
    text: str, object_type: str | None, role: Role
) -> None:
    context = UIContext.model_validate(
        {"contextVersion": 1, "objectType": object_type, "envId": "ss-dev", "route": "/"}
    )
    offered = set(select_tools(role, context).offered)
    reply = _plan(text, object_type, role)
    assert {call["name"] for call in reply.tool_calls} <= offered


def test_planner_asks_for_what_it_cannot_fill() -> None:
    reply = _plan("выкати этот дашборд", "dashboard")
    assert not reply.tool_calls
    assert "в какое окружение" in str(reply.content)
    assert "target_env_id" not in str(reply.content)  # never an argument's name


def test_planner_renders_results_readably_and_says_it_is_offline() -> None:
    result = ToolMessage(
        content='{"items": [{"id": 10, "title": "Отчёт"}], "total": 1}',
        tool_call_id="c",
        name="search_dashboards",
    )
    reply = PLANNER.invoke(
        [
            HumanMessage("найди"),
            AIMessage(
                content="", tool_calls=[{"name": "search_dashboards", "args": {}, "id": "c"}]
            ),
            result,
        ]
    )
    assert not str(reply.content).startswith(OFFLINE_PREFIX)  # the /agent page says it once
    assert "Найдено: 1 дашборд." in str(reply.content)
    assert "[Отчёт](/dashboards/10) (#10)" in str(reply.content)


def test_planner_reads_the_context_the_graph_hands_beside_the_prompt() -> None:
    """The graph hands the UIContext in the system message's ``additional_kwargs``; there it
    is what the planner goes by (a message naming no tool means the page's default)."""
    page = UIContext.model_validate(
        {"contextVersion": 1, "objectType": "dashboard", "envId": "ss-dev", "route": "/"}
    )
    offered = select_tools(Role.engineer, page).offered
    bound = PLANNER.bind_tools([CATALOGUE[name].schema() for name in offered])

    def planned(system: SystemMessage) -> list[str]:
        reply = bound.invoke([system, HumanMessage("привет")])
        assert isinstance(reply, AIMessage)
        return [call["name"] for call in reply.tool_calls]

    assert planned(system_message("", page)) == ["get_health_summary"]
    # The prompt's block is for a model to read; the planner goes by the data alone.
    assert planned(system_message(prompt_block(page), None)) == ["show_capabilities"]
