"""The labelled set of ordinary requests (``bench/data/requests.jsonl``) as eval scenarios.

Each line says where a request was made (context, environment, role), whether it is a question
or a command, and what should come of it: a tool (with its slots), a refusal naming the role
that may, or a question back for a missing slot. ``sstools eval --scenarios <file>.jsonl`` runs
them through the agent API like any scenario file, so a real model can be compared with the
offline planner on the same requests; accuracy is reported per split (``tune``, ``heldout``).
"""

from __future__ import annotations

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
)

Split = Literal["tune", "heldout"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Call(_Strict):
    tool: str
    slots: dict[str, Any]


class Refusal(_Strict):
    refusal_role: Role
    for_tool: str


class Ask(_Strict):
    ask: str
    for_tool: str


class Request(_Strict):
    """One ordinary request, where it was made, by whom, and what should come of it."""

    text: str = Field(min_length=1)
    lang: Literal["ru", "en", "mixed", "translit"]
    object_type: ObjectType | None
    object_id: str | None
    env: str
    role: Role
    kind: Literal["question", "command"]
    expect: Call | Refusal | Ask
    split: Split

    @property
    def tool(self) -> str:
        """The tool the request is about: the one expected, refused or asked back for."""
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


def read_requests(path: Path) -> list[Request]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ScenarioFileError(f"{path}: {exc.strerror}") from exc
    requests = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            requests.append(Request.model_validate_json(line))
        except ValidationError as exc:
            raise ScenarioFileError(f"{path}:{number}: {exc}") from exc
    return requests


def _expectation(request: Request) -> Expectation:
    expect = request.expect
    if isinstance(expect, Call):
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
            message=request.text,
            expect=_expectation(request),
        )
        for number, request in enumerate(read_requests(path), start=1)
    ]
    return ScenarioFile(scenarios=scenarios)
