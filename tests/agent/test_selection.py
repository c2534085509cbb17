"""Story 1 (acceptance 3, 4, 6), Story 3 (acceptance 1), AGCTX-FR-005, AGTL-FR-001."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from sstools.agent.context import UIContext
from sstools.agent.selection import HiddenBecause, select_tools
from sstools.agent.tools import CATALOGUE, ToolKind
from sstools.auth.roles import Role
from tests.agent.conftest import DASHBOARD_SET, DATASET_SET, SPEC_DASHBOARD_SET
from tests.conftest import AuthHeaders

WRITE_TOOLS = {name for name, tool in CATALOGUE.items() if tool.kind is ToolKind.write}


def _context(object_type: str | None, env_id: str | None = "ss-dev") -> UIContext:
    return UIContext.model_validate(
        {"contextVersion": 1, "objectType": object_type, "envId": env_id, "route": "/"}
    )


def test_catalogue_has_the_22_tools_of_the_design_rollback_restore_and_drift() -> None:
    assert len(CATALOGUE) == 27
    assert {
        "deploy_dashboard",
        "rollback_deploy",
        "restore_backup",
        "execute_migration",
        "create_branch",
        "commit_changes",
        "superset_create_dataset",
        "run_backup",
    } == WRITE_TOOLS


@pytest.mark.parametrize("role", [Role.engineer, Role.admin])
def test_story1_acceptance3_dashboard_context_offers_exactly_the_dashboard_tools(
    role: Role,
) -> None:
    """The spec's set, and what the page shows (issue 33 §3); datasets and backups stay out."""
    selection = select_tools(role, _context("dashboard"))
    assert set(selection.offered) >= SPEC_DASHBOARD_SET
    assert set(selection.offered) == DASHBOARD_SET
    for name in ("superset_explore_database", "run_backup", "list_backups", "restore_backup"):
        assert selection.hidden[name].reason is HiddenBecause.context


@pytest.mark.parametrize("role", [Role.engineer, Role.admin])
def test_story1_acceptance4_dataset_context_offers_exactly_the_dataset_tools(role: Role) -> None:
    assert set(select_tools(role, _context("dataset")).offered) == DATASET_SET


def test_story1_acceptance6_no_object_offers_everything_the_role_allows() -> None:
    assert set(select_tools(Role.admin, _context(None)).offered) == set(CATALOGUE)
    engineer = select_tools(Role.engineer, _context(None))
    assert set(engineer.offered) == set(CATALOGUE) - {"run_backup", "restore_backup"}
    assert engineer.hidden["run_backup"].reason is HiddenBecause.role
    assert engineer.hidden["restore_backup"].reason is HiddenBecause.role


@pytest.mark.parametrize("object_type", ["dashboard", "dataset", "migration", None])
def test_story3_acceptance1_analyst_is_never_offered_a_write_tool(object_type: str | None) -> None:
    selection = select_tools(Role.analyst, _context(object_type))
    assert not WRITE_TOOLS & set(selection.offered)
    assert "show_capabilities" in selection.offered


def test_story3_acceptance1_analyst_on_a_dashboard() -> None:
    offered = set(select_tools(Role.analyst, _context("dashboard")).offered)
    assert offered == DASHBOARD_SET - {
        "deploy_dashboard",
        "execute_migration",
        "create_branch",
        "commit_changes",
        "rollback_deploy",
    }


def test_no_environment_hides_environment_bound_tools_with_the_reason() -> None:
    selection = select_tools(Role.admin, _context(None, env_id=None))
    assert "search_dashboards" not in selection.offered
    assert selection.hidden["search_dashboards"].reason is HiddenBecause.no_environment
    assert "list_environments" in selection.offered
    assert "create_branch" in selection.offered


def test_agtl_fr_006_router_hook_narrows_but_capabilities_stay() -> None:
    def router(message: str, tools: list[Any]) -> list[Any]:
        return [tool for tool in tools if "dashboard" in tool.name][:1]

    selection = select_tools(Role.admin, _context("dashboard"), message="x", router=router)
    assert selection.offered == ["search_dashboards", "show_capabilities"]


def test_every_tool_is_described_and_documented() -> None:
    from pathlib import Path

    docs = (Path(__file__).parents[2] / "docs" / "agent.md").read_text()
    for name, tool in CATALOGUE.items():
        assert len(tool.description) > 20, name
        assert tool.title, name
        assert f"`{name}`" in docs, name


async def test_tools_endpoint_shows_what_the_caller_would_be_offered(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    response = await client.get(
        "/api/agent/tools?objectType=dashboard&envId=ss-dev", headers=auth(Role.analyst)
    )
    body = response.json()
    assert set(body["offered"]) == DASHBOARD_SET - WRITE_TOOLS
    assert body["hidden"]["deploy_dashboard"]["reason"] == "role"
    bad = await client.get("/api/agent/tools?objectType=invalid", headers=auth(Role.analyst))
    assert bad.status_code == 422
    unknown = await client.get("/api/agent/tools?envId=nowhere", headers=auth(Role.analyst))
    assert unknown.status_code == 404


def test_a_conversation_that_started_a_task_may_follow_it_from_a_dashboard_page() -> None:
    # The page's set, until a task started here needs following.
    before = select_tools(Role.engineer, _context("dashboard"))
    after = select_tools(Role.engineer, _context("dashboard"), following_task=True)
    assert set(before.offered) == DASHBOARD_SET
    # and undoing: a deploy's task line in a dashboard's chat offers «Откатить…» (issue 33 §1)
    assert set(after.offered) == DASHBOARD_SET | {"get_task_status"}
    assert after.hidden["superset_execute_sql"].reason is HiddenBecause.context
    analyst = select_tools(Role.analyst, _context("dashboard"), following_task=True)
    assert analyst.hidden["rollback_deploy"].reason is HiddenBecause.role
