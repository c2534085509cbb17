"""The labelled set of ordinary requests (``bench/data/requests.jsonl``) as eval scenarios.

Each line says where a request was made (context, environment, role), whether it is a question
or a command, and what should come of it: a tool (with its slots), an answer in words with no
call (``"tool": null``), a refusal naming the role that may, or a question back for a missing
slot. A line may carry the conversation's earlier turns (``previous``: the person's and the
agent's words, for a follow-up such as «prod» after «в какое окружение?») and a note
(``needs``); a first line ``{"header": …}`` describes the file and is skipped.
``sstools eval --scenarios <file>.jsonl`` runs them through the agent API like any scenario
file, so a real model can be compared with the offline planner on the same requests; accuracy is
reported per split (``tune``, ``heldout``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sstools.agent.context import ObjectType, UIContext
from sstools.agent.texts.answers import ROLE_NAMES
from sstools.agent.tools import CATALOGUE, CallScope, ToolKind
from sstools.auth.roles import Role
from sstools.evaluation.scenarios import (
    Expectation,
    Scenario,
    ScenarioContext,
    ScenarioFile,
    ScenarioFileError,
    ToolExpectation,
    Turn,
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Call(_Strict):
    tool: str | None  # None: answered in words, no tool called
    slots: dict[str, Any] = {}


class Refusal(_Strict):
    refusal_role: Role
    for_tool: str


class Ask(_Strict):
    ask: str
    for_tool: str


class Earlier(_Strict):
    """A turn said before the request, in the same conversation."""

    role: Literal["user", "assistant"]
    text: str = Field(min_length=1)


class Request(_Strict):
    """One ordinary request, where it was made, by whom, and what should come of it."""

    text: str = Field(min_length=1)
    lang: str  # ru, en, mixed, translit
    object_type: ObjectType | None
    object_id: str | None
    env: str
    role: Role
    kind: Literal["question", "command"]
    expect: Call | Refusal | Ask
    split: str  # tune, heldout (another file may name its own)
    previous: list[Earlier] = []
    needs: str | None = None  # what the line tests, for people

    @property
    def tool(self) -> str | None:
        """The tool the request is about: the one expected, refused or asked back for (None:
        an answer in words)."""
        return self.expect.tool if isinstance(self.expect, Call) else self.expect.for_tool

    def context(self) -> UIContext:
        """The page it was made on, as the /agent page sends it."""
        return UIContext.model_validate(
            {
                "contextVersion": 1,
                "objectType": self.object_type,
                "objectId": self.object_id,
                "envId": self.env,
                "route": "/",
            }
        )

    def scope(self) -> CallScope:
        object_id = int(self.object_id) if self.object_id else None
        return CallScope(env_id=self.env, object_type=self.object_type, object_id=object_id)


_EXPECT_KEYS = frozenset({"tool", "slots", "refusal_role", "for_tool", "ask"})


def _known_keys(line: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The line without the keys no request has (and those keys, to say so)."""
    fields = Request.model_fields
    kept = {key: value for key, value in line.items() if key in fields}
    dropped = [key for key in line if key not in fields]
    expect = kept.get("expect")
    if isinstance(expect, dict):
        kept["expect"] = {key: value for key, value in expect.items() if key in _EXPECT_KEYS}
        dropped += [f"expect.{key}" for key in expect if key not in _EXPECT_KEYS]
    return kept, dropped


def read_requests(path: Path, *, lenient: bool = False) -> list[Request]:
    """The requests of ``path``, one JSON object a line; a ``header`` line is skipped.

    ``lenient``: keys no request has are left out (and named by :func:`unknown_keys`) rather
    than refused — for a file written elsewhere, scored as it is.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ScenarioFileError(f"{path}: {exc.strerror}") from exc
    requests = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            if isinstance(raw, dict) and "header" in raw:
                continue
            if lenient and isinstance(raw, dict):
                raw, _ = _known_keys(raw)
            requests.append(Request.model_validate(raw))
        except (ValueError, ValidationError) as exc:
            raise ScenarioFileError(f"{path}:{number}: {exc}") from exc
    return requests


def unknown_keys(path: Path) -> list[str]:
    """The keys of ``path``'s lines that no request has (a lenient read leaves them out)."""
    found: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            raw = json.loads(line) if line.strip() else None
        except ValueError:
            continue
        if isinstance(raw, dict) and "header" not in raw:
            found += [key for key in _known_keys(raw)[1] if key not in found]
    return found


def _expectation(request: Request) -> Expectation:
    expect = request.expect
    if isinstance(expect, Call) and expect.tool is None:
        return Expectation(confirmation="none")  # words, no card
    if isinstance(expect, Call):
        assert expect.tool is not None
        writes = CATALOGUE[expect.tool].kind is ToolKind.write
        # A question is never carded: its write is a dry run, or another tool answers it.
        confirmation = "none" if request.kind == "question" or not writes else None
        return Expectation(tools=ToolExpectation(any_of=[expect.tool]), confirmation=confirmation)
    if isinstance(expect, Refusal):
        return Expectation(
            forbidden_tools=[expect.for_tool],
            confirmation="none",
            answer_contains=[ROLE_NAMES[expect.refusal_role.value]],
        )
    # Asked back in words: nothing runs that needs the slot, and no argument name is printed.
    return Expectation(
        forbidden_tools=[expect.for_tool], confirmation="none", answer_excludes=[expect.ask]
    )


def _context(request: Request) -> ScenarioContext | None:
    if request.object_type is None:
        return ScenarioContext(env_id=request.env)
    return ScenarioContext(
        object_type=request.object_type, object_id=request.object_id, env_id=request.env
    )


def request_scenarios(path: Path) -> ScenarioFile:
    """Every request of ``path`` as a scenario; ``kind`` is its split."""
    scenarios = [
        Scenario(
            id=f"{request.split}-{number:03d}",
            kind=request.split,
            source=f"{path.name}:{number}",
            role=request.role,
            context=_context(request),
            earlier=[
                Turn(message=turn.text, context=_context(request))
                for turn in request.previous
                if turn.role == "user"
            ],
            message=request.text,
            expect=_expectation(request),
        )
        for number, request in enumerate(read_requests(path), start=1)
    ]
    return ScenarioFile(scenarios=scenarios)
