"""Cards a person can edit (issue 25 §2), over real HTTP and SSE with a scripted model: an edit is
checked against what the card offered, the call is planned again (a new card, a new digest), the
apply carries exactly the edited plan, and the model is told what the person changed.

The real sandbox's twin (one dashboard unticked, applied on Superset) is
tests/integration/test_card_edits.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from sqlalchemy import select

from sstools.agent.card.edits import EditRefused, apply_edit, offered_edits
from sstools.agent.context import ObjectType
from sstools.agent.tools import CATALOGUE, CallScope
from sstools.auth.roles import Role
from sstools.storage.models import AuditEntry
from sstools.testing import call_tool
from tests.agent.cards import asked_on_a_dashboard
from tests.agent.conftest import ENVS, dashboard_context
from tests.agent.deploy_server import DeployServer
from tests.support import types

MIGRATE = {"dashboard_ids": [10, 11, 12], "target_env_id": "prod"}
ASKED = "перенеси дашборды 10, 11 и 12 в prod"


async def _card(agent: Any) -> tuple[str, dict[str, Any]]:
    cid, events = await agent.ask(ASKED, dashboard_context())
    assert events[-1]["type"] == "confirm_required", events
    return cid, events[-1]


@asynccontextmanager
async def _migration_card(
    make_agent: Any, url: str, **settings: Any
) -> AsyncIterator[tuple[Any, str, dict[str, Any]]]:
    """An agent whose model migrates ``MIGRATE`` (``settings`` over the app's), its tools on
    ``url``, asked to: (the agent, the conversation, the card it stopped at)."""
    call = ("execute_migration", MIGRATE)
    async with asked_on_a_dashboard(make_agent, url, call, ASKED, **settings) as asked:
        agent, cid, events = asked
        assert events[-1]["type"] == "confirm_required", events
        yield agent, cid, events[-1]


async def test_an_edited_card_is_planned_again_and_applies_exactly_the_edited_plan(
    make_agent: Any, deploys: tuple[DeployServer, str]
) -> None:
    server, url = deploys
    async with _migration_card(make_agent, url, approvals_prod=1) as (agent, cid, card):
        edits = {edit["field"]: edit for edit in card["decision"]["edits"]}
        assert edits["dashboard_ids"]["kind"] == "subset"
        assert edits["dashboard_ids"]["value"] == ["10", "11", "12"]
        targets = [choice["value"] for choice in edits["target_env_id"]["choices"]]
        assert targets == ["staging", "prod"]  # not the source it migrates from
        assert card["decision"]["stage"] == "prod"

        # Untick «Склад» and send it to staging instead of prod.
        answer = await agent.edit(
            cid, card, {"dashboard_ids": ["10", "11"], "target_env_id": "staging"}
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["status"] == "edited"
        events = await agent.events_after(cid, card)
        assert events[0]["decided"]["status"] == "edited"
        assert events[0]["decided"]["by"] == "engineer"
        new = events[-1]
        assert new["type"] == "confirm_required", events
        assert new["confirmation_id"] != card["confirmation_id"]
        assert new["call_id"] == card["call_id"]
        assert new["args"]["dashboard_ids"] == [10, 11]
        assert new["decision"]["stage"] == "staging"  # quieter: the target's own stage
        assert new["decision"]["digest"] != card["decision"]["digest"]
        assert new["decision"]["impact"] == "2 дашборда будут изменены"
        assert server.plans[-1] == {
            "dashboard_ids": [10, 11],
            "source": {"env_id": "ss-dev"},
            "target_env_id": "staging",
        }
        assert server.applies == []  # an edit runs nothing

        # The old card cannot be approved any more; the new one applies the edited plan.
        stale = await agent.decide(cid, card["confirmation_id"], "approve")
        assert stale.status_code == 409
        assert (await agent.decide(cid, new["confirmation_id"], "approve")).status_code == 200
        done = await agent.events_after(cid, new)
        assert "done" in types(done)
        async with agent.app.state.services.sessions() as session:  # while the app runs
            audited = (
                await session.scalars(
                    select(AuditEntry).where(AuditEntry.action == "confirmation_decided")
                )
            ).all()
    assert [entry.outcome for entry in audited] == ["edited", "approved"]
    assert len(server.applies) == 1
    applied = server.applies[0]
    assert applied["dashboard_ids"] == [10, 11]
    assert applied["target_env_id"] == "staging"
    assert applied["digest"] == new["decision"]["digest"]
    # The model is told what the person changed with the result of the call it made.
    result = next(m for m in agent.model.prompts[-1] if isinstance(m, ToolMessage))
    told = str(result.content)
    payload = json.loads(told)  # still the result's JSON, the person's changes first in it
    assert next(iter(payload)) == "edited_by_person"
    assert payload["edited_by_person"].startswith(
        "Человек изменил параметры на карточке перед подтверждением "
        "(Дашборды: #10, #11, #12 → #10, #11; Куда: prod (Prod) → staging (Staging))"
    )
    assert payload["id"] == "a" * 32
    # The history holds the call as it ran: a repeat of the model's original is not «answered».
    made = next(m for m in agent.model.prompts[-1] if isinstance(m, AIMessage) and m.tool_calls)
    assert made.tool_calls[0]["args"]["target_env_id"] == "staging"


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"target_env_id": "ss-dev"}, "target_env_id"),  # the source: not offered
        ({"target_env_id": "nowhere"}, "target_env_id"),
        ({"dashboard_ids": []}, "dashboard_ids"),
        ({"dashboard_ids": ["10", "99"]}, "dashboard_ids"),  # only untick, never add
        ({"source_env_id": "staging"}, "source_env_id"),  # not editable on this card
        ({"dashboard_ids": ["10", "11", "12"]}, "dashboard_ids"),  # nothing changed
        ({}, "args"),
    ],
)
async def test_an_edit_the_card_did_not_offer_is_a_422_naming_the_field_and_changes_nothing(
    make_agent: Any, deploys: tuple[DeployServer, str], args: dict[str, Any], field: str
) -> None:
    server, url = deploys
    async with _migration_card(make_agent, url, approvals_prod=1) as (agent, cid, card):
        answer = await agent.edit(cid, card, args)
        assert answer.status_code == 422, answer.text
        problem = answer.json()["detail"][0]
        expected = ["body", "args"] if field == "args" else ["body", "args", field]
        assert problem["loc"] == expected
        assert problem["msg"]
        assert "_" not in problem["msg"]  # words, not an argument's name
        # The card still waits, as it was: approving it applies the model's plan.
        assert (await agent.decide(cid, card["confirmation_id"], "approve")).status_code == 200
        await agent.events_after(cid, card)
    assert [body["dashboard_ids"] for body in server.applies] == [[10, 11, 12]]


async def test_an_edit_is_checked_like_the_models_call_a_role_or_an_expired_card_runs_nothing(
    make_agent: Any, deploys: tuple[DeployServer, str]
) -> None:
    server, url = deploys
    async with _migration_card(make_agent, url, approvals_prod=1) as (agent, cid, card):
        other = await agent.client.post(
            f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}",
            json={"decision": "edit", "args": {"target_env_id": "staging"}},
            headers=agent.auth(Role.admin),  # someone else: the conversation is not theirs
        )
        assert other.status_code == 404
        assert (await agent.decide(cid, card["confirmation_id"], "deny")).status_code == 200
        late = await agent.edit(cid, card, {"target_env_id": "staging"})
        assert late.status_code == 409
        assert "отклонено" in late.json()["detail"]
    assert server.applies == []


def test_a_git_card_offers_its_message_and_branch_as_text_within_the_tools_limits() -> None:
    commit = CATALOGUE["commit_changes"]
    args = commit.args_model.model_validate({"message": "обновление", "dashboard_ids": [10]})
    scope = CallScope(env_id="ss-dev", object_type=ObjectType.dashboard, object_id=10)
    edits = offered_edits(commit, args, scope, "Отчёт", ENVS)
    assert [(edit.field, edit.kind, edit.max_length) for edit in edits] == [
        ("message", "text", 500)  # one dashboard: nothing to untick
    ]
    edited = apply_edit(commit, {"message": "обновление"}, edits, {"message": "Отчёт: снимок"})
    assert edited.args == {"message": "Отчёт: снимок"}
    assert edited.changes == "Сообщение коммита: обновление → Отчёт: снимок"
    with pytest.raises(EditRefused) as too_long:
        apply_edit(commit, {"message": "обновление"}, edits, {"message": "я" * 501})
    assert too_long.value.field == "args.message"
    assert too_long.value.message == "«Сообщение коммита»: не длиннее 500 символов"

    branch = CATALOGUE["create_branch"]
    named = branch.args_model.model_validate({"name": "feature/energy"})
    edits = offered_edits(branch, named, scope, None, ENVS)
    assert [(edit.field, edit.label, edit.value) for edit in edits] == [
        ("name", "Ветка", "feature/energy")
    ]
    renamed = apply_edit(branch, {"name": "feature/energy"}, edits, {"name": "feature/css"})
    assert renamed.args == {"name": "feature/css"}
    for bad in ("../main", "has space", ""):
        with pytest.raises(EditRefused) as refused:
            apply_edit(branch, {"name": "feature/energy"}, edits, {"name": bad})
        assert refused.value.field == "args.name"
        assert "«Ветка»" in refused.value.message


async def test_an_expired_card_cannot_be_edited_and_a_prod_target_still_needs_a_second_person(
    make_agent: Any, deploys: tuple[DeployServer, str], settings: Any
) -> None:
    server, url = deploys
    to_staging = {**MIGRATE, "target_env_id": "staging"}
    async with make_agent(
        call_tool("execute_migration", to_staging), tools_base_url=url, approvals_prod=2
    ) as agent:
        now = datetime.now(UTC)
        agent.app.state.agent.clock = lambda: now
        cid, card = await _card(agent)
        assert card["decision"]["stage"] == "staging"
        # Edited to prod (two people by default): the new card's approval asks a second one.
        answer = await agent.edit(cid, card, {"target_env_id": "prod"})
        assert answer.status_code == 200, answer.text
        events = await agent.events_after(cid, card)
        new = events[-1]
        assert new["decision"]["stage"] == "prod"
        assert new["decision"]["level"] == "dangerous"
        approved = await agent.decide(cid, new["confirmation_id"], "approve")
        assert approved.json()["status"] == "awaiting_second"
        assert server.applies == []

    async with make_agent(call_tool("execute_migration", MIGRATE), tools_base_url=url) as agent:
        moment = datetime.now(UTC)
        agent.app.state.agent.clock = lambda: moment
        cid, card = await _card(agent)
        moment += timedelta(seconds=settings.confirmation_ttl_s + 1)
        late = await agent.edit(cid, card, {"target_env_id": "staging"})
        assert late.status_code == 409
        assert "истекло" in late.json()["detail"]
    assert server.applies == []


async def test_an_edit_that_leaves_nothing_to_approve_is_still_told_to_the_model(
    make_agent: Any, deploys: tuple[DeployServer, str]
) -> None:
    """Edited to a target that has the dashboards already: no new card (nothing to approve),
    the person reads why, and the model's result of its call still says what the person
    changed, so it does not report the target it proposed."""
    server, url = deploys
    server.in_sync = {"staging"}
    async with _migration_card(make_agent, url) as (agent, cid, card):
        assert (await agent.edit(cid, card, {"target_env_id": "staging"})).status_code == 200
        events = await agent.events_after(cid, card)
    assert "confirm_required" not in types(events)
    said = next(event for event in events if event["type"] == "tool_result")
    assert said["outcome"] == "refused"
    assert "изменений нет" in said["message"]
    result = next(m for m in agent.model.prompts[-1] if isinstance(m, ToolMessage))
    assert str(result.content).startswith(
        "Человек изменил параметры на карточке перед подтверждением (Куда: prod (Prod) → staging"
    )
    assert server.applies == []
