"""What an MCP host is offered, by role, and how a call's page arguments become its scope."""

from __future__ import annotations

import pytest

from sstools.agent.context import ObjectType
from sstools.agent.tools import CATALOGUE, ToolKind
from sstools.auth.roles import Role
from sstools.mcp_face.tools import PlaceInvalid, split_call, tools_for


def test_each_role_is_offered_what_it_may_use_with_annotations_that_say_what_it_does() -> None:
    offered = {role: {tool.name: tool for tool in tools_for(role)} for role in Role}
    assert "deploy_dashboard" not in offered[Role.analyst]
    assert "search_dashboards" in offered[Role.analyst]
    assert "deploy_dashboard" in offered[Role.engineer]
    assert "run_backup" not in offered[Role.engineer]
    assert "run_backup" in offered[Role.admin]
    assert "show_capabilities" not in offered[Role.admin]  # answered by the chat itself
    for tool in offered[Role.admin].values():
        spec = CATALOGUE[tool.name]
        hints = tool.annotations
        assert hints is not None
        assert (tool.title, hints.title) == (spec.title, spec.title)
        if spec.kind is ToolKind.read and spec.classify is None:
            assert hints.readOnlyHint is True, tool.name
        else:
            assert (hints.readOnlyHint, hints.idempotentHint) == (False, False), tool.name
    assert offered[Role.admin]["restore_backup"].annotations.destructiveHint is True  # type: ignore[union-attr]
    assert offered[Role.admin]["create_branch"].annotations.destructiveHint is False  # type: ignore[union-attr]
    # DML through SQL is a write: never promised read-only.
    assert offered[Role.analyst]["superset_execute_sql"].annotations.readOnlyHint is False  # type: ignore[union-attr]


def test_the_page_s_place_is_given_as_arguments_where_the_tool_reads_it() -> None:
    tools = {tool.name: tool for tool in tools_for(Role.engineer)}
    timeline = tools["get_dashboard_timeline"].inputSchema["properties"]
    assert {"env_id", "dashboard_id"} <= set(timeline)
    health = tools["get_health_summary"].inputSchema["properties"]
    assert "env_id" in health  # its own argument, not added twice


def test_a_call_s_page_arguments_become_its_scope_and_bad_ones_are_named() -> None:
    split = split_call(
        CATALOGUE["deploy_dashboard"],
        {"env_id": "ss-dev", "dashboard_id": 10, "target_env_id": "staging"},
    )
    assert split.args == {"dashboard_id": 10, "target_env_id": "staging"}  # its own argument
    assert split.scope.env_id == "ss-dev"
    explore = split_call(CATALOGUE["superset_explore_database"], {"env_id": "x", "dataset_id": 3})
    assert (explore.scope.object_type, explore.scope.object_id) == (ObjectType.dataset, 3)
    with pytest.raises(PlaceInvalid, match="env_id"):
        split_call(CATALOGUE["search_dashboards"], {"env_id": 5})
