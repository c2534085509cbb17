"""The git tools answer for real now: a commit round-trip through a card, and a read of status."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import ToolMessage

from sstools.auth.roles import Role
from sstools.testing import call_tool
from tests.agent.conftest import dashboard_context
from tests.support import types


def _commits(agent: Any) -> list[str]:
    return [branch.commit.id for branch in agent.app.state.services.git.repository.branches()]


async def _commit_card(agent: Any) -> tuple[str, dict[str, Any]]:
    cid, events = await agent.ask("закоммить этот дашборд", dashboard_context("3"))
    assert events[-1]["type"] == "confirm_required", events
    return cid, events[-1]


async def test_commit_changes_asks_then_commits_once_as_the_user(make_agent: Any) -> None:
    script = call_tool("commit_changes", {"message": "первая версия"}, text="Готово.")
    async with make_agent(script) as agent:
        before = _commits(agent)
        cid, card = await _commit_card(agent)
        assert card["decision"]["tone"] == "warning"
        assert card["decision"]["prompt"] == "Изменения в git-репозитории"
        assert _commits(agent) == before  # nothing before the decision
        assert (await agent.decide(cid, card["confirmation_id"], "approve")).status_code == 200
        events = await agent.events_after(cid, card)
        (branch,) = agent.app.state.services.git.repository.branches()
    assert types(events) == ["run_started", "tool_result", "message", "done"]
    assert events[1]["outcome"] == "ok"
    assert branch.commit.id != before[0]
    assert branch.commit.author == "engineer <engineer@sstools>"
    assert branch.commit.message.startswith("первая версия")


async def test_denied_commit_writes_nothing(make_agent: Any) -> None:
    async with make_agent(call_tool("commit_changes", {"message": "нет"})) as agent:
        before = _commits(agent)
        cid, card = await _commit_card(agent)
        assert (await agent.decide(cid, card["confirmation_id"], "deny")).status_code == 200
        await agent.events_after(cid, card)
        assert _commits(agent) == before


async def test_git_status_reads_the_environment_against_main(make_agent: Any) -> None:
    # get_git_status has no affinity (the spec's dashboard set is exact): offered without object.
    context = {**dashboard_context(), "objectType": None, "objectId": None, "objectName": None}
    async with make_agent(call_tool("get_git_status", {})) as agent:
        _, events = await agent.ask("что с git?", {**context, "route": "/agent"}, Role.analyst)
    assert events[2]["outcome"] == "ok", events
    result = agent.model.prompts[-1][-1]
    assert isinstance(result, ToolMessage)
    status = json.loads(str(result.content))
    assert status["env_id"] == "ss-dev"
    assert [(d["dashboard_id"], d["status"]) for d in status["dashboards"]] == [
        (i, "untracked") for i in range(1, 8)
    ]
