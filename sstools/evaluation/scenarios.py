"""Scenario files: what to ask, in which context and role, and what a right answer looks like.

A file is YAML: ``scenarios:`` a list of :class:`Scenario`. The default file, the Story 1–3
acceptance scenarios of the spec, ships as ``sstools/evaluation/scenarios/acceptance.yaml``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sstools.agent.context import ObjectType
from sstools.agent.guardrails import RiskLevel, Tone
from sstools.agent.tools import CATALOGUE, ToolKind
from sstools.auth.roles import Role
from sstools.environments import Stage
from sstools.errors import SstoolsError

DEFAULT_SCENARIOS = "acceptance.yaml"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ScenarioContext(_Strict):
    """The page the person asks from; an object named but not numbered is looked up by name.

    ``route`` defaults to the object's page, or ``/settings`` with no object (general mode).
    """

    object_type: ObjectType | None = Field(default=None, alias="objectType")
    object_id: str | None = Field(default=None, alias="objectId", pattern=r"^[0-9]{1,18}$")
    object_name: str | None = Field(default=None, alias="objectName", max_length=256)
    env_id: str | None = Field(default=None, alias="envId", max_length=64)
    route: str | None = None

    @model_validator(mode="after")
    def _object_is_named(self) -> ScenarioContext:
        named = self.object_id is not None or self.object_name is not None
        if self.object_type in (ObjectType.dashboard, ObjectType.dataset) and not named:
            raise ValueError("a dashboard or dataset context needs objectId or objectName")
        if self.object_id is None and self.object_name is not None and self.env_id is None:
            raise ValueError("an object looked up by name needs envId")
        return self


class ToolExpectation(_Strict):
    """Which tools the model must call: at least one of ``any_of``, and every one of ``all_of``."""

    any_of: list[str] = []
    all_of: list[str] = []


class OfferedExpectation(_Strict):
    """The tool set the hard filter offers here (``GET /api/agent/tools``), not the model's pick."""

    exactly: list[str] | None = None
    includes: list[str] = []
    excludes: list[str] = []


class CardExpectation(_Strict):
    """The first confirmation card of the turn; ``prompt_contains`` is a substring of its prompt."""

    level: RiskLevel | None = None
    tone: Tone | None = None
    kind: ToolKind | None = None
    stage: Stage | None = None
    prompt_contains: str | None = None


# A fact is a phrase, or a list of phrases any one of which will do (synonyms, RU/EN).
Fact = str | list[str]


class Expectation(_Strict):
    # Set by `sstools eval --from-feedback`: what a person must still write (what a right answer
    # does); a scenario with it is skipped, not graded, until the line is deleted.
    todo: str | None = None
    tools: ToolExpectation = ToolExpectation()
    forbidden_tools: list[str] = []
    offered: OfferedExpectation | None = None
    # Every write is denied by the harness: "required" also checks the cancellation it causes.
    confirmation: Literal["required", "none"] | None = None
    card: CardExpectation | None = None
    answer_contains: list[Fact] = []
    answer_excludes: list[str] = []

    @model_validator(mode="after")
    def _consistent(self) -> Expectation:
        if self.card is not None and self.confirmation != "required":
            raise ValueError("card expectations need confirmation: required")
        offered = self.offered or OfferedExpectation()
        named = [*self.tools.any_of, *self.tools.all_of, *self.forbidden_tools]
        named += [*(offered.exactly or []), *offered.includes, *offered.excludes]
        unknown = sorted(set(named) - set(CATALOGUE))
        if unknown:  # a misspelt tool would otherwise just never be called
            raise ValueError(f"unknown tools: {', '.join(unknown)}")
        return self


class Turn(_Strict):
    """A message sent earlier in the same conversation; its answer is not graded."""

    message: str = Field(min_length=1, max_length=4000)
    context: ScenarioContext | None = None


class FeedbackNote(_Strict):
    """Where a scenario made from a 👎 comes from: the answer the person rated down, their
    comment, who rated it and when. For people reading the file; never graded."""

    answer: str
    note: str | None = None  # the person's comment
    rated_by: str
    rated_at: str  # ISO 8601, UTC


class Scenario(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")
    kind: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,39}$")  # accuracy is reported per kind
    source: str | None = None  # where it comes from, e.g. "Story 1, acceptance 2"
    role: Role
    context: ScenarioContext | None = None
    earlier: list[Turn] = []
    message: str = Field(min_length=1, max_length=4000)
    expect: Expectation
    feedback: FeedbackNote | None = None  # made by `sstools eval --from-feedback`


class ScenarioFile(_Strict):
    scenarios: list[Scenario] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> ScenarioFile:
        seen: set[str] = set()
        for scenario in self.scenarios:
            if scenario.id in seen:
                raise ValueError(f"scenario id {scenario.id!r} appears twice")
            seen.add(scenario.id)
        return self


class ScenarioFileError(SstoolsError):
    """The file cannot be read or does not describe scenarios; the message says where."""


def default_scenarios_text() -> str:
    return (resources.files(__package__) / "scenarios" / DEFAULT_SCENARIOS).read_text("utf-8")


def parse_scenarios(text: str, origin: str) -> ScenarioFile:
    try:
        return ScenarioFile.model_validate(yaml.safe_load(text))
    except yaml.YAMLError as exc:
        raise ScenarioFileError(f"{origin}: not YAML: {exc}") from exc
    except ValidationError as exc:
        raise ScenarioFileError(f"{origin}: {exc}") from exc


def load_scenarios(path: Path | None = None) -> ScenarioFile:
    """The scenarios in ``path`` (YAML, or a labelled requests file ``.jsonl``), or the shipped
    acceptance scenarios."""
    if path is None:
        return parse_scenarios(default_scenarios_text(), DEFAULT_SCENARIOS)
    if path.suffix == ".jsonl":
        from sstools.evaluation.requests import request_scenarios  # it builds on this module

        return request_scenarios(path)
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise ScenarioFileError(f"{path}: {exc.strerror}") from exc
    return parse_scenarios(text, str(path))
