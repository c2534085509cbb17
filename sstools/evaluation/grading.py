"""Grade one turn's events against a scenario's expectations: a list of reasons it failed.

What the person saw is the "answer": the assistant's messages, and the «Недостаточно прав» and
«Операция отменена» cards, in order. Facts are matched case- and «ё»-insensitively.

Every scenario's answer is also checked whatever its expectations say: it is not empty, and it
shows no tool call written as text (a model that writes its call as JSON or in a chat
template's tags instead of calling the tool: issue 21 §1).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from sstools.agent.tools import CATALOGUE
from sstools.evaluation.scenarios import CardExpectation, Expectation, Fact, OfferedExpectation
from sstools.russian import normalize

# Events whose text a person reads in the chat.
_READ_BY_PERSON = {"message": "text", "permission_denied": "message", "cancelled": "message"}


class Transcript(BaseModel):
    """What one graded turn did, as the API reported it."""

    events: list[dict[str, Any]]
    offered: list[str] | None = None  # GET /api/agent/tools for the scenario's context
    complete: bool = True

    @property
    def called(self) -> list[str]:
        return [event["tool"] for event in self.events if event["type"] == "tool_call"]

    @property
    def cards(self) -> list[dict[str, Any]]:
        return [event for event in self.events if event["type"] == "confirm_required"]

    @property
    def answer(self) -> str:
        return "\n".join(
            str(event[field])
            for event in self.events
            if (field := _READ_BY_PERSON.get(event["type"])) and event.get(field)
        )


def _names(tools: list[str] | set[str]) -> str:
    return ", ".join(sorted(tools)) or "none"


def _naming(tools: set[str], words: str) -> list[str]:
    """``words`` with ``tools`` named at ``{}``, where there are any."""
    return [words.format(_names(tools))] if tools else []


def _tools(expect: Expectation, called: list[str]) -> list[str]:
    reasons = []
    if expect.tools.any_of and not set(expect.tools.any_of) & set(called):
        reasons.append(
            f"expected a call to one of {_names(expect.tools.any_of)}; called {_names(called)}"
        )
    missing = set(expect.tools.all_of) - set(called)
    reasons += _naming(missing, "expected calls to {}; called " + _names(called))
    return reasons + _naming(set(expect.forbidden_tools) & set(called), "called forbidden {}")


def _offered(expect: OfferedExpectation, offered: list[str]) -> list[str]:
    reasons = []
    if expect.exactly is not None and set(expect.exactly) != set(offered):
        extra, absent = set(offered) - set(expect.exactly), set(expect.exactly) - set(offered)
        reasons.append(f"offered tools differ: extra {_names(extra)}; missing {_names(absent)}")
    reasons += _naming(set(expect.includes) - set(offered), "not offered: {}")
    return reasons + _naming(set(expect.excludes) & set(offered), "offered although excluded: {}")


def _card(expect: CardExpectation, decision: dict[str, Any]) -> list[str]:
    reasons = []
    for field in ("level", "tone", "kind", "stage"):
        wanted = getattr(expect, field)
        if wanted is not None and decision.get(field) != wanted.value:
            reasons.append(f"card {field} is {decision.get(field)!r}, expected {wanted.value!r}")
    prompt = str(decision.get("prompt", ""))
    if expect.prompt_contains and normalize(expect.prompt_contains) not in normalize(prompt):
        reasons.append(f"card prompt {prompt!r} lacks {expect.prompt_contains!r}")
    return reasons


def _confirmation(expect: Expectation, transcript: Transcript) -> list[str]:
    cards = transcript.cards
    if expect.confirmation == "none" and cards:
        return [f"asked to confirm {_names({card['tool'] for card in cards})}, expected no card"]
    if expect.confirmation != "required":
        return []
    if not cards:
        return ["expected a confirmation card, none came"]
    reasons = _card(expect.card, cards[0]["decision"]) if expect.card else []
    cancelled = {
        event.get("confirmation_id") for event in transcript.events if event["type"] == "cancelled"
    }
    if cards[0]["confirmation_id"] not in cancelled:
        reasons.append("the denied confirmation brought no `cancelled` event (its message)")
    return reasons


def _facts(facts: list[Fact], excluded: list[str], answer: str) -> list[str]:
    text = normalize(answer)
    reasons = []
    for fact in facts:
        choices = [fact] if isinstance(fact, str) else fact
        if not any(normalize(choice) in text for choice in choices):
            reasons.append(f"answer lacks {' or '.join(repr(choice) for choice in choices)}")
    for phrase in excluded:
        if normalize(phrase) in text:
            reasons.append(f"answer contains {phrase!r}")
    return reasons


# The tags chat templates wrap a tool call in (Hermes/Qwen, Llama 3, Mistral, llama.cpp's XML
# form): in the answer, they are a call the model wrote instead of making it.
CALL_MARKERS = ("<tool_call>", "</tool_call>", "<tools>", "<|python_tag|>", "[TOOL_CALLS]")
_CALL_MARKER = re.compile(r"<function=\w+>")
_NAME_KEYS = ("name", "tool", "tool_name", "function")
_JSON_START = re.compile(r"[{\[]")


def _called(value: Any) -> str | None:
    """The catalogue tool a decoded JSON value calls: ``{"name": ..., "arguments": ...}``,
    ``{"function": {"name": ...}}``, ``{"tool": ...}``, or a list of those."""
    for item in value if isinstance(value, list) else [value]:
        if not isinstance(item, dict):
            continue
        for key in _NAME_KEYS:
            named = item.get(key)
            if isinstance(named, dict):
                named = named.get("name")
            if isinstance(named, str) and named in CATALOGUE:
                return named
    return None


def raw_calls(answer: str) -> list[str]:
    """Why the answer shows a tool call as text; empty when it shows none."""
    found = _CALL_MARKER.search(answer)
    marker = next((one for one in CALL_MARKERS if one in answer), found and found.group())
    if marker:
        return [f"answer shows a tool call as text ({marker})"]
    decoder = json.JSONDecoder()
    for start in _JSON_START.finditer(answer):
        try:
            value, _ = decoder.raw_decode(answer, start.start())
        except ValueError:
            continue
        name = _called(value)
        if name is not None:
            return [f"answer shows a call to {name} as raw JSON instead of making it"]
    return []


def _answer_shape(answer: str) -> list[str]:
    if not answer.strip():
        return ["the answer is empty: the person read nothing"]
    return raw_calls(answer)


def grade(expect: Expectation, transcript: Transcript) -> list[str]:
    """Every reason the turn misses the expectations; empty when it passes."""
    reasons = [
        f"error {event['code']}: {event['message']}"
        for event in transcript.events
        if event["type"] == "error"
    ]
    if not transcript.complete:
        reasons.append("the model kept asking to confirm writes after they were denied")
    if expect.offered is not None and transcript.offered is not None:
        reasons += _offered(expect.offered, transcript.offered)
    reasons += _tools(expect, transcript.called)
    reasons += _confirmation(expect, transcript)
    reasons += _answer_shape(transcript.answer)
    reasons += _facts(expect.answer_contains, expect.answer_excludes, transcript.answer)
    return reasons
