"""The repository's recorded data, typed, for the tests and the benches alike.

``bench/data/`` holds tool answers recorded on the sandbox (``bench/record_answers.py``) and the
router's labelled requests; both the benches and the tests read them through this module, so
neither imports the other.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from sstools.agent.context import ObjectType, UIContext
from sstools.agent.selection import select_tools
from sstools.agent.tools import CATALOGUE, CallScope
from sstools.auth.roles import Role

# In a checkout (tests and benches run from one), beside the package.
BENCH_DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
ANSWERS = BENCH_DATA / "answers"
ROUTER_CASES = BENCH_DATA / "router_eval.jsonl"
Split = Literal["tune", "heldout"]


class RecordedAnswer(BaseModel):
    """One tool answer as the domain API gave it, with the call that produced it."""

    case: str
    tool: str
    args: dict[str, Any]
    scope: CallScope
    payload: Any


def recorded() -> list[RecordedAnswer]:
    """Every stored answer, by case name."""
    return [
        RecordedAnswer.model_validate_json(path.read_text(encoding="utf-8"))
        for path in sorted(ANSWERS.glob("*.json"))
    ]


class RouterCase(BaseModel):
    """One request as a person types it, where they are, and the tools that answer it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(min_length=1)
    lang: Literal["ru", "en", "mixed", "translit"]
    object_type: ObjectType | None
    env: str | None
    role: Role
    tools: tuple[str, ...] = Field(min_length=1)
    split: Split

    def context(self) -> UIContext:
        return UIContext.model_validate(
            {"contextVersion": 1, "objectType": self.object_type, "envId": self.env, "route": "/"}
        )

    def candidates(self) -> list[str]:
        """What the hard filters leave, less the tools offered whatever the ranking says."""
        offered = select_tools(self.role, self.context()).offered
        return [name for name in offered if not CATALOGUE[name].always]


@cache
def router_cases() -> tuple[RouterCase, ...]:
    lines = ROUTER_CASES.read_text(encoding="utf-8").splitlines()
    return tuple(RouterCase.model_validate_json(line) for line in lines if line.strip())
