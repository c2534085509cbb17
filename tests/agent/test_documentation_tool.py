"""run_llm_documentation: writing and storing a document reads; committing it is a write.

Issue 18: an injected model in an analyst's session must not reach git through this tool, and an
engineer's commit goes through a card like every other write.
"""

from __future__ import annotations

from typing import Any

from sstools.agent.guardrails import Tone
from sstools.agent.invocation import Cleared, NeedsConfirmation, Refused
from sstools.auth.roles import Role
from sstools.testing import call_tool
from tests.agent.conftest import DASHBOARD_PAGE, check_on_page, dashboard_context
from tests.support import types
from tests.tasks.support import eventually


def test_an_analyst_may_document_but_not_commit() -> None:
    stored_only = check_on_page(Role.analyst, DASHBOARD_PAGE, "run_llm_documentation", {})
    assert isinstance(stored_only, Cleared)
    assert not stored_only.decision.needs_confirmation

    committing = check_on_page(
        Role.analyst, DASHBOARD_PAGE, "run_llm_documentation", {"commit": True}
    )
    assert isinstance(committing, Refused)
    assert committing.required_role is Role.engineer


def test_an_engineers_commit_is_a_git_write_that_asks_first() -> None:
    verdict = check_on_page(
        Role.engineer, DASHBOARD_PAGE, "run_llm_documentation", {"commit": True}
    )
    assert isinstance(verdict, NeedsConfirmation)
    assert verdict.decision.kind == "write"
    assert (verdict.decision.tone, verdict.decision.prompt) == (
        Tone.warning,
        "Изменения в git-репозитории",
    )


async def _started(agent: Any, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The task the call started, once its first step has said how many steps it plans."""
    (result,) = [event for event in events if event["type"] == "tool_result"]
    assert result["outcome"] == "ok", result
    path = f"/api/tasks/{result['task_id']}"
    task: dict[str, Any] = {}

    async def planned() -> bool:
        nonlocal task
        task = (await agent.client.get(path, headers=agent.auth(Role.engineer))).json()
        return task["progress"] is not None

    await eventually(planned)
    return task


async def test_an_approved_commit_starts_a_committing_task_once(make_agent: Any) -> None:
    script = call_tool("run_llm_documentation", {"commit": True}, text="Запустил.")
    async with make_agent(script) as agent:
        cid, events = await agent.ask("задокументируй и закоммить", dashboard_context("3"))
        card = events[-1]
        assert card["type"] == "confirm_required", events
        assert card["decision"]["prompt"] == "Изменения в git-репозитории"
        tasks_before = await agent.client.get("/api/tasks", headers=agent.auth(Role.engineer))
        assert tasks_before.json() == []  # nothing runs before the decision

        assert (await agent.decide(cid, card["confirmation_id"], "approve")).status_code == 200
        after = await agent.events_after(cid, card)
        assert types(after) == ["run_started", "tool_result", "message", "done"]
        task = await _started(agent, after)
        tasks_after = await agent.client.get("/api/tasks", headers=agent.auth(Role.engineer))
    assert (task["kind"], task["started_by"]) == ("documentation", "engineer")
    assert task["progress"]["total"] == 4  # its commit step is planned (3 without one)
    assert [one["id"] for one in tasks_after.json()] == [task["id"]]  # started once
    # The commit itself, on the real sandbox and git: tests/integration/test_documentation_commit.py


async def test_an_analysts_document_runs_without_a_card_and_is_not_committed(
    make_agent: Any,
) -> None:
    async with make_agent(call_tool("run_llm_documentation", {}, text="Запустил.")) as agent:
        _, events = await agent.ask("задокументируй", dashboard_context("3"), Role.analyst)
        assert "confirm_required" not in types(events)
        task = await _started(agent, events)
    assert task["started_by"] == "analyst"
    assert task["progress"]["total"] == 3  # read, write, store: no commit step
