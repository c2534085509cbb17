"""Issue 22 §1: the labelled set of ordinary requests (``bench/data/requests.jsonl``) is sound.

The set is what ``bench/planner.py`` scores the offline planner on, so a label that the app
could never meet (a tool not offered on that page to that role, a refusal for a role the tool
does not need, a slot the tool has no argument for) would make the bench lie. Checked against
the real catalogue and selection: every line parses, every tool has requests enough, the
tune/held-back split is stratified by tool, and no request is copied from the router's own
examples (``sstools/agent/routing/tools.yaml``), so the held-back split measures understanding.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path

from sstools.agent import texts
from sstools.agent.context import ObjectType
from sstools.agent.routing.catalogue import routing_texts
from sstools.agent.selection import HiddenBecause, Selection, select_tools
from sstools.agent.tools import CATALOGUE, ToolKind
from sstools.auth.roles import Role
from sstools.evaluation.requests import Ask, Call, Refusal, Request, read_requests

REQUESTS = Path(__file__).resolve().parents[2] / "bench" / "data" / "requests.jsonl"
ENVIRONMENTS = {"ss-dev", "staging", "prod"}
# Not an argument of any tool: «последняя выкатка», the latest deploy the planner resolves.
DERIVED_SLOTS = {"rollback_deploy": {"last_deploy"}}
PER_TOOL = 12


def _selection(request: Request) -> Selection:
    return select_tools(request.role, request.context())


@cache
def requests() -> tuple[Request, ...]:
    return tuple(read_requests(REQUESTS))


def _tool(request: Request) -> str:
    """Every request of this set names its tool (an answer in words is for other files)."""
    assert request.tool is not None, request.text
    return request.tool


def _folded(text: str) -> str:
    return " ".join(text.casefold().replace("ё", "е").split()).rstrip("?!. ")


def _writes(tool: str) -> bool:
    spec = CATALOGUE[tool]
    return spec.kind is ToolKind.write or spec.classify is not None


def test_every_line_parses_and_the_set_is_large_enough() -> None:
    lines = [line for line in REQUESTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert [json.loads(line) for line in lines]
    assert len(requests()) == len(lines) >= 450
    for request in requests():
        assert request.env in ENVIRONMENTS, request.text
        has_object = request.object_type in (ObjectType.dashboard, ObjectType.dataset)
        assert (request.object_id is not None) == has_object, request.text


def test_every_tool_is_asked_for_in_every_way() -> None:
    called = Counter(r.expect.tool for r in requests() if isinstance(r.expect, Call))
    thin = {name: called[name] for name in CATALOGUE if called[name] < PER_TOOL}
    assert thin == {}, f"tools with fewer than {PER_TOOL} requests: {thin}"
    assert {r.lang for r in requests()} == {"ru", "en", "mixed", "translit"}
    places = {(r.object_type, r.role) for r in requests()}
    assert places == {(o, role) for o in (None, *ObjectType) for role in Role}
    assert sum(isinstance(r.expect, Refusal) for r in requests()) >= 60
    about_writes = [
        r
        for r in requests()
        if r.kind == "question"
        and (
            _writes(_tool(r))
            or r.tool in ("preview_migration", "list_backups", "list_tasks")
            or (isinstance(r.expect, Call) and r.expect.slots.get("dry_run") is True)
        )
    ]
    assert len(about_writes) >= 80
    for tool in ("deploy_dashboard", "execute_migration", "rollback_deploy", "restore_backup"):
        kinds = {r.kind for r in requests() if isinstance(r.expect, Call) and r.tool == tool}
        assert kinds == {"question", "command"}, tool


def test_the_split_is_sixty_forty_within_every_tool() -> None:
    by_tool: dict[str, list[Request]] = defaultdict(list)
    for request in requests():
        by_tool[_tool(request)].append(request)
    for tool, members in by_tool.items():
        held = sum(r.split == "heldout" for r in members)
        assert 0.3 <= held / len(members) <= 0.5, (tool, held, len(members))
    for expectation in (Call, Refusal, Ask):
        members = [r for r in requests() if isinstance(r.expect, expectation)]
        held = sum(r.split == "heldout" for r in members)
        assert 0.35 <= held / len(members) <= 0.45, expectation.__name__


def test_every_expected_tool_is_offered_there_with_the_slots_it_has() -> None:
    for request in requests():
        if isinstance(request.expect, Refusal):
            continue
        selection = _selection(request)
        tool = _tool(request)
        assert tool in selection.offered, (request.text, selection.hidden[tool])
        fields = set(CATALOGUE[tool].args_model.model_fields)
        allowed = fields | DERIVED_SLOTS.get(tool, set())
        if isinstance(request.expect, Ask):
            assert request.expect.ask in fields, request.text
            continue
        slots = request.expect.slots
        assert set(slots) <= allowed, (request.text, set(slots) - allowed)
        # A question about a write is answered by its plan: the write is never the answer.
        if "dry_run" in fields:
            assert slots.get("dry_run", False) is (request.kind == "question"), request.text


def test_every_refusal_names_the_role_the_tool_is_hidden_for() -> None:
    for request in requests():
        if not isinstance(request.expect, Refusal):
            continue
        needed = Role(request.expect.refusal_role)
        assert not request.role.allows(needed), request.text
        tool = CATALOGUE[request.expect.for_tool]
        hidden = _selection(request).hidden.get(tool.name)
        if hidden is None:  # offered, but this call writes (DML, a commit): decided per call
            assert tool.classify is not None, request.text
            assert needed is max(tool.min_role, Role.engineer, key=lambda role: role.rank)
            continue
        assert hidden.reason is HiddenBecause.role, (request.text, hidden)
        assert hidden.detail == texts.HIDDEN_BY_ROLE.format(role=needed.value), request.text
        assert tool.min_role is needed, request.text


def test_no_request_is_repeated_or_copied_from_the_router_examples() -> None:
    seen = Counter(_folded(r.text) for r in requests())
    assert [text for text, count in seen.items() if count > 1] == []
    examples = {_folded(e) for text in routing_texts().values() for e in text.examples}
    assert [r.text for r in requests() if _folded(r.text) in examples] == []
