"""Issue 22: the offline planner on the ordinary requests of ``bench/data/requests.jsonl``.

Each request is one first turn of a conversation, planned the way the app plans it with no model
configured: the hard filters and the hybrid router choose the offered tools for the message
(:func:`sstools.agent.selection.select_tools`), the system message is the graph's
(:func:`sstools.agent.prompt.system_prompt`, the page's context handed beside it), and the
planner's chat model (:func:`sstools.agent.offline.planner.offline_planner`, what
:func:`sstools.agent.chat_model.chat_model` returns with no endpoint) is called with the offered
tools bound. Each call it makes is then checked as the graph's ``assess`` node checks it
(:func:`sstools.agent.invocation.check_call`): a card (``NeedsConfirmation``) or a refusal with
the role it needs (``Refused.required_role``).

Scored on the held-back split and on the outsiders' held-back files (``requests_outsider.jsonl``,
``requests_outsider2.jsonl``, ``requests_outsider3.jsonl``, ``requests_outsider4.jsonl`` and
``requests_outsider5.jsonl``, each
by a writer who read neither the planner nor its tuning;
the tune split's figures and misses go to stderr, the only ones tuning looks at): the first
tool, questions that got a card, role-hidden requests refused naming the role, the slots, asking
back for a missing slot, and the time of the planner's call. A request for a tool the page
hides (AGCTX-FR-005: no backup beside a dashboard) is right when the reply says where to ask
(:func:`points_elsewhere`), as a role-hidden one is when it names the role.
Slots count over every expected one (a wrong first tool misses them all). A role-hidden request
is refused when a call is denied for exactly that role, or when a reply with no call names the
role (``show_capabilities`` or another tool does not count). An ask-back counts when the reply
makes no call and names the slot: its card label, its choices (environments), or its argument's
name — which the last row counts as a failure of its own (issue 22 §3). «The last deploy»
(``last_deploy`` in a request's slots: ``rollback_deploy`` has no such argument) is right as a
call with a task id, or — in a first turn, with no deploy in the conversation to resolve it to —
as a question back naming the tool and asking which deploy (:func:`asks_which_deploy`).

The baseline is today's keyword planner, recorded from this scorer's first run
(:data:`BASELINE`) rather than re-run: keeping that planner importable would mean freezing a copy
of it with its vocabulary and keyword lists, which move with the new planner.
Run: ``python -m bench --only planner``; ``--requests-file PATH`` scores another file of the same
format instead (every line of it, whatever its split), printing the same rows for it. Such a file
may give a line the conversation's earlier turns (``previous``: planned as the history before
the request) and expect an answer in words (``"tool": null``: right when no tool is called).
The planner is handed the fleet the sandbox's seed makes (:mod:`bench.fleet_listing`), as the
graph hands it the fleet it reads over HTTP.
"""

from __future__ import annotations

import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import SecretStr

from bench.fleet_listing import recorded_fleet
from bench.table import Row
from sstools.agent import fleet, prompt
from sstools.agent.invocation import NeedsConfirmation, Refused, Verdict, check_call
from sstools.agent.offline.planner import offline_planner
from sstools.agent.routing import tool_router
from sstools.agent.routing.tokens import WORD, stem
from sstools.agent.selection import HiddenBecause, hard_filter, routing_text, select_tools
from sstools.agent.texts import OFFLINE_PREFIX
from sstools.agent.texts import answers as answer_texts
from sstools.agent.texts import offline as offline_texts
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.environments import Environment, EnvironmentRegistry
from sstools.evaluation.requests import Call, Refusal, Request, read_requests, unknown_keys
from sstools.llm.function_model import FunctionChatModel
from sstools.sandbox.fleet import INSTANCES

REQUESTS = Path(__file__).resolve().parent / "data" / "requests.jsonl"
# The second held-back set, written by someone who read neither the planner nor its tuning
# (its header says who and when): scored beside ours, its misses never printed.
OUTSIDER = REQUESTS.with_name("requests_outsider.jsonl")
# A third, by another writer on 7 December, the same way (issue 36, round 6).
OUTSIDER2 = REQUESTS.with_name("requests_outsider2.jsonl")
# A fourth, by a third writer on 7 December before round 7's tuning was measured on it.
OUTSIDER3 = REQUESTS.with_name("requests_outsider3.jsonl")
# A fifth, by a fourth writer on 7 December while round 8 was tuned (measured, never read).
OUTSIDER4 = REQUESTS.with_name("requests_outsider4.jsonl")
OUTSIDER5 = REQUESTS.with_name("requests_outsider5.jsonl")

TOOL_GOAL = 0.95
SLOT_GOAL = 0.95
ASK_GOAL = 0.95  # the issue sets none for asking back; the same bar as the tools and slots
P95_GOAL_S = 0.030

# Today's keyword planner (before issue 22) on the held-back split, from this scorer's run of
# 2026-12-01 17:39 UTC, 2 shared cores at load ≈ 7: recorded, not re-run (see above). Held-back:
# tool 84/152, carded 0/75, refused 0/27, slots 38/145, ask 11/12, names 12/12, p95 4.9-8.1 ms.
BASELINE = {
    "tool": 84 / 152,
    "carded": 0.0,
    "refused": 0.0,
    "slots": 38 / 145,
    "ask": 11 / 12,
    "names": 1.0,
    "p95_ms": 4.9,
}
BASELINE_LABEL = "keyword planner, 2026-12-01 (recorded)"


@cache
def requests() -> tuple[Request, ...]:
    return tuple(read_requests(REQUESTS))


# The sandbox's environments as the app registers them (no password is needed to plan).
ENVIRONMENTS = EnvironmentRegistry(
    [
        Environment(
            id=one.env_id,
            name=one.name,
            stage=one.stage,
            url="http://127.0.0.1",
            username="planner-bench",
            password=SecretStr("unused"),
        )
        for one in INSTANCES
    ]
)


@dataclass
class Outcome:
    """What the planner answered to one request, and how the graph would take its calls."""

    request: Request
    offered: list[str]
    calls: list[tuple[str, dict[str, Any]]]
    verdicts: list[Verdict]
    text: str
    seconds: float  # the planner's call
    turn_seconds: float  # routing (the message's embedding), the tools' schemas and the call

    @property
    def first_tool(self) -> str | None:
        return self.calls[0][0] if self.calls else None

    @property
    def carded(self) -> bool:
        return any(isinstance(verdict, NeedsConfirmation) for verdict in self.verdicts)

    def refused_naming(self, role: Role) -> bool:
        """Refused with that role: a call the checks deny for it, or words that name it."""
        if any(isinstance(v, Refused) and v.required_role is role for v in self.verdicts):
            return True
        return not self.calls and answer_texts.ROLE_NAMES[role.value] in self.text.casefold()


def plan(request: Request) -> Outcome:
    settings = Settings.model_fields
    router = tool_router(settings["router"].default, settings["router_k"].default)
    context = request.context()
    history: list[BaseMessage] = [
        HumanMessage(turn.text) if turn.role == "user" else AIMessage(turn.text)
        for turn in request.previous
    ]
    routed = time.perf_counter()  # the message embedded and routed, as every model's turn is
    message = routing_text([*history, HumanMessage(request.text)], context)
    selection = select_tools(request.role, context, message=message, router=router)
    model = _planner().bind_tools([CATALOGUE[name].schema() for name in selection.offered])
    system = prompt.system_prompt(ENVIRONMENTS, context, selection, request.role)
    # The person asking is the sandbox's user of that role («моя выкатка»: engineer's).
    system = fleet.hand(system, recorded_fleet().model_copy(update={"me": request.role.value}))
    began = time.perf_counter()
    reply = model.invoke([system, *history, HumanMessage(request.text)])
    seconds = time.perf_counter() - began
    turn_seconds = time.perf_counter() - routed
    assert isinstance(reply, AIMessage)
    calls = [(call["name"], dict(call["args"])) for call in reply.tool_calls]
    verdicts = [
        check_call(
            {"id": call["id"] or "", "name": call["name"], "args": call["args"]},
            request.role,
            selection,
            request.scope(),
            ENVIRONMENTS,
            confirm_reads=False,
        )
        for call in reply.tool_calls
    ]
    return Outcome(request, selection.offered, calls, verdicts, reply.text, seconds, turn_seconds)


@cache
def _planner() -> FunctionChatModel:
    return offline_planner(list(ENVIRONMENTS))


# -- slots and asking back -------------------------------------------------------------------------


def _sql(value: Any) -> str:
    return " ".join(str(value).split()).rstrip(";").strip()


def slot_matches(name: str, expected: Any, args: dict[str, Any]) -> bool:
    if name == "last_deploy":  # resolved from the task records: the call names a task
        return "task_id" in args
    if name == "sql":
        return name in args and _sql(args[name]) == _sql(expected)
    if isinstance(expected, bool):
        return args.get(name) is expected
    if isinstance(expected, list):
        return [str(one) for one in args.get(name) or []] == [str(one) for one in expected]
    return name in args and str(args[name]) == str(expected)


def _stems(text: str) -> set[str]:
    return {stem(word) for word in WORD.findall(text)}


ARGUMENT_NAMES = frozenset(
    name for tool in CATALOGUE.values() for name in tool.args_model.model_fields
)


def prints_an_argument_name(text: str) -> bool:
    """Whether a reply shows a person an argument's name (``task_id``), not words for it."""
    return any(re.search(rf"\b{name}\b", text) for name in ARGUMENT_NAMES)


def asks_for(outcome: Outcome, slot: str) -> bool:
    """A reply with no call that names what it asks for: the slot's label on a card, its
    choices (the environments), or, as the keyword planner does, the argument's own name."""
    if outcome.calls:
        return False
    text = outcome.text
    if re.search(rf"\b{slot}\b", text):
        return True
    labels = [answer_texts.CARD_LABELS.get(slot), answer_texts.LABELS.get(slot)]
    if slot == "name":
        labels.append(answer_texts.CARD_BRANCH)
    # Not the words of a quoted title: «Выкатка дашборда» does not ask which dashboard.
    said = _stems(re.sub(r"«[^»]*»", " ", text))
    if any(label and _stems(label) <= said for label in labels):
        return True
    if slot in ("target_env_id", "env_id", "source_env_id"):
        return sum(env in text for env in ENVIRONMENTS) >= 2
    return False


def asks_which_deploy(outcome: Outcome, expect: Call) -> bool:
    """«the last deploy» in a first turn: ``rollback_deploy`` has no such argument and the
    conversation has no deploy to resolve it to, so the right answer is to ask back which
    deploy, naming the tool (its title) and asking for the task (issue 22 §3)."""
    if "last_deploy" not in expect.slots or outcome.calls or expect.tool is None:
        return False
    return CATALOGUE[expect.tool].title in outcome.text and asks_for(outcome, "task_id")


def hidden_by_the_page(request: Request, tool: str) -> bool:
    """Whether the page's object hides ``tool`` whatever the message says (AGCTX-FR-005: a
    backup is not offered beside a dashboard), for a role that may use it."""
    hidden = hard_filter(request.role, request.context()).hidden.get(tool)
    return hidden is not None and hidden.reason is HiddenBecause.context


def points_elsewhere(outcome: Outcome, expect: Call) -> bool:
    """A request for a tool its page hides: right when the reply calls nothing and names the
    tool (its title) and where it is done — the general chat — as the spec's hard filter has it."""
    if expect.tool is None or outcome.calls:
        return False
    if not hidden_by_the_page(outcome.request, expect.tool):
        return False
    page = offline_texts.PAGES[outcome.request.object_type or ""]
    said = offline_texts.ELSEWHERE.format(tool=CATALOGUE[expect.tool].title, page=page)
    return said in outcome.text


def asked_slot_matches(name: str, expected: Any, text: str) -> bool:
    """A slot of a request asked back about: the latest deploy is what is asked for; any other
    slot must be said back in the question (the environment: «какую выкатку в prod…»)."""
    if name in ("last_deploy", "dry_run"):
        return True
    return re.search(rf"(?<![\w-]){re.escape(str(expected))}(?![\w-])", text) is not None


# -- scoring -------------------------------------------------------------------------------------


@dataclass
class Score:
    """The figures of one split as (right, out of) counts, and what went wrong, for stderr."""

    outcomes: list[Outcome]
    tool: tuple[int, int] = (0, 0)
    carded: tuple[int, int] = (0, 0)
    refused: tuple[int, int] = (0, 0)
    slots: tuple[int, int] = (0, 0)
    ask: tuple[int, int] = (0, 0)
    names: tuple[int, int] = (0, 0)  # ask-backs printing an argument's name, of those made
    not_routed: int = 0  # the router left the tool out: no planner could have chosen it
    pointed: int = 0  # the page hides the tool; the reply said where to ask (counted right)
    by_slot: Counter[tuple[str, bool]] = field(default_factory=Counter)  # (slot, right)
    misses: list[str] = field(default_factory=list)

    @property
    def figures(self) -> dict[str, tuple[int, int]]:
        return {
            "tool": self.tool,
            "carded": self.carded,
            "refused": self.refused,
            "slots": self.slots,
            "ask": self.ask,
            "names": self.names,
        }

    @property
    def p95_ms(self) -> float:
        return percentile([o.seconds for o in self.outcomes], 0.95) * 1000


def scored(outcomes: list[Outcome]) -> Score:
    result = Score(outcomes)
    counts: Counter[str] = Counter()
    for outcome in outcomes:
        request, expect = outcome.request, outcome.request.expect
        if request.kind == "question":
            counts["questions"] += 1
            if outcome.carded:
                counts["carded"] += 1
                result.misses.append(_miss(outcome, "question carded"))
        if isinstance(expect, Call) and expect.tool is None:
            counts["calls"] += 1  # an answer in words: right when nothing is called
            counts["tool"] += not outcome.calls
            if outcome.calls:
                result.misses.append(_miss(outcome, "tool (words expected)"))
        elif isinstance(expect, Call):
            assert expect.tool is not None
            counts["calls"] += 1
            result.not_routed += expect.tool not in outcome.offered
            asked_which = asks_which_deploy(outcome, expect)
            pointed = points_elsewhere(outcome, expect)
            right = outcome.first_tool == expect.tool or asked_which or pointed
            counts["tool"] += right
            counts["pointed"] += pointed
            if not right:
                result.misses.append(_miss(outcome, "tool"))
            if pointed:
                continue  # no call to fill: its slots are the general chat's to ask
            args = outcome.calls[0][1] if right and outcome.calls else {}
            for name, value in expect.slots.items():
                counts["slots"] += 1
                matches = (
                    asked_slot_matches(name, value, outcome.text)
                    if asked_which
                    else slot_matches(name, value, args)
                )
                result.by_slot[name, matches] += 1
                if matches:
                    counts["slots_right"] += 1
                elif right:
                    result.misses.append(_miss(outcome, f"slot {name}={value!r}"))
        elif isinstance(expect, Refusal):
            counts["hidden"] += 1
            if outcome.refused_naming(expect.refusal_role):
                counts["refused"] += 1
            else:
                result.misses.append(_miss(outcome, f"no refusal naming {expect.refusal_role}"))
        else:
            counts["asks"] += 1
            if asks_for(outcome, expect.ask):
                counts["asked"] += 1
            else:
                result.misses.append(_miss(outcome, f"ask {expect.ask}"))
            if not outcome.calls:
                counts["texts"] += 1
                counts["named"] += prints_an_argument_name(outcome.text)
    result.tool = (counts["tool"], counts["calls"])
    result.carded = (counts["carded"], counts["questions"])
    result.refused = (counts["refused"], counts["hidden"])
    result.slots = (counts["slots_right"], counts["slots"])
    result.ask = (counts["asked"], counts["asks"])
    result.names = (counts["named"], counts["texts"])
    result.pointed = counts["pointed"]
    return result


def _miss(outcome: Outcome, what: str) -> str:
    request = outcome.request
    got: object = outcome.calls[:1] or outcome.text.removeprefix(OFFLINE_PREFIX).strip()[:100]
    where = f"{request.object_type or 'general'}/{request.role.value}"
    return f"  {what}: {request.text!r} ({where}) → {got}"


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def score(split: str, chosen: Sequence[Request] | None = None, *, held_back: bool = False) -> Score:
    """The figures of ``split`` (or of ``chosen``, named ``split``), printed to stderr; the
    misses too, for the tune split and another file (never a held-back set's lines)."""
    members = chosen if chosen is not None else [r for r in requests() if r.split == split]
    result = scored([plan(request) for request in members])
    shown = " ".join(f"{name} {part}/{whole}" for name, (part, whole) in result.figures.items())
    print(
        f"{split} planner: {shown} p95 {result.p95_ms:.1f} ms, tool not routed {result.not_routed}"
        f", hidden by the page and pointed to the general chat {result.pointed}",
        file=sys.stderr,
    )
    slots = sorted({name for name, _ in result.by_slot})
    each = (
        f"{n} {result.by_slot[n, True]}/{result.by_slot[n, True] + result.by_slot[n, False]}"
        for n in slots
    )
    print(f"  {split} slots: {', '.join(each)}", file=sys.stderr)
    if split != "heldout" and not held_back:
        for line in sorted(result.misses):
            print(line, file=sys.stderr)
    answered = Counter(
        o.first_tool or "text" for o in result.outcomes if isinstance(o.request.expect, Refusal)
    )
    print(f"  {split} role-hidden answered by: {dict(answered)}", file=sys.stderr)
    return result


# (figure, what is measured, of what, the goal, and the shares that meet it: low ≤ share ≤ high)
GOALS: tuple[tuple[str, str, str, str, float, float], ...] = (
    ("tool", "first tool", "requests", f"≥ {TOOL_GOAL:.0%}", TOOL_GOAL, 1),
    ("carded", "questions that got a card", "questions", "0", 0, 0),
    ("refused", "role-hidden requests refused naming the role", "requests", "100 %", 1, 1),
    ("slots", "slots right", "expected slots", f"≥ {SLOT_GOAL:.0%}", SLOT_GOAL, 1),
    ("ask", "asked back for the missing slot", "requests", f"≥ {ASK_GOAL:.0%}", ASK_GOAL, 1),
    ("names", "ask-backs that print an argument's name", "replies", "0", 0, 0),
)


def rows(requests_file: Path | None = None) -> list[Row]:
    score("tune")  # also the warm-up: the first requests pay for the indexes and page faults
    if requests_file is None:  # the held-back sets: ours, and the five written by outsiders
        outsider = read_requests(OUTSIDER, lenient=True)
        second = read_requests(OUTSIDER2, lenient=True)
        third = read_requests(OUTSIDER3, lenient=True)
        fourth = read_requests(OUTSIDER4, lenient=True)
        fifth = read_requests(OUTSIDER5, lenient=True)
        return [
            *_rows(score("heldout"), "held-back"),
            *_rows(score("outsider", outsider, held_back=True), "outsiders' held-back"),
            *_rows(score("outsider2", second, held_back=True), "second outsiders' held-back"),
            *_rows(score("outsider3", third, held_back=True), "third outsiders' held-back"),
            *_rows(score("outsider4", fourth, held_back=True), "fourth outsiders' held-back"),
            *_rows(score("outsider5", fifth, held_back=True), "fifth outsiders' held-back"),
        ]
    ignored = unknown_keys(requests_file)
    if ignored:
        print(f"{requests_file}: left out keys {', '.join(ignored)}", file=sys.stderr)
    name = requests_file.name
    return _rows(score(name, read_requests(requests_file, lenient=True)), name)


def _rows(held: Score, name: str) -> list[Row]:
    made: list[Row] = []
    for key, metric, unit, goal, low, high in GOALS:
        part, whole = held.figures[key]
        share, baseline = (part / whole if whole else 0.0), BASELINE[key]
        made.append(
            Row(
                "planner",
                f"{metric}, {name} ({whole} {unit})",
                f"{share:.1%}" if whole else "— (none in the file)",
                f"{BASELINE_LABEL}: {baseline:.1%}",
                share / baseline if baseline else None,
                goal,
                low <= share <= high or not whole,
            )
        )
    p50 = statistics.median(o.seconds for o in held.outcomes) * 1000
    p95 = held.p95_ms
    made.append(
        Row(
            "planner",
            f"planning time per turn, {name} ({len(held.outcomes)} turns)",
            f"p50 {p50:.1f} ms, p95 {p95:.1f} ms",
            f"{BASELINE_LABEL}: p95 {BASELINE['p95_ms']:.1f} ms",
            p95 / BASELINE["p95_ms"] if BASELINE["p95_ms"] else None,
            f"p95 ≤ {P95_GOAL_S * 1000:.0f} ms",
            p95 <= P95_GOAL_S * 1000,
        )
    )
    turns = [o.turn_seconds for o in held.outcomes]
    turn_p95 = percentile(turns, 0.95) * 1000
    made.append(
        Row(
            "planner",
            f"routing and planning per turn (message embedded, cold), {name} ({len(turns)})",
            f"p50 {statistics.median(turns) * 1000:.1f} ms, p95 {turn_p95:.1f} ms",
            f"the planner's call alone, same run: p95 {p95:.1f} ms",
            turn_p95 / p95 if p95 else None,
            "— (the app starts the embedding as the message arrives: the router rows)",
            True,
        )
    )
    return made
