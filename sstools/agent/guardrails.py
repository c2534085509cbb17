"""GuardrailDecision: how risky a call is, from the tool's kind *and* the target's configured stage.

| call                                   | level     | tone        |
| -------------------------------------- | --------- | ----------- |
| read, any environment                  | safe      | success     |
| write to dev or staging                | guarded   | info        |
| write with no environment (git)        | guarded   | warning     |
| write to prod, backup                  | dangerous | destructive |

The stage comes from configuration, never from the model. Permission is decided before any card:
a denied call never gets one (AGGRD-FR-003).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel

from sstools.agent import texts
from sstools.agent.tools import ToolArgs, ToolKind, ToolSpec
from sstools.environments import EnvironmentRegistry, Stage


class RiskLevel(StrEnum):
    safe = "safe"
    guarded = "guarded"
    dangerous = "dangerous"


class Tone(StrEnum):
    success = "success"
    info = "info"
    warning = "warning"
    destructive = "destructive"


class CardArgument(BaseModel):
    """One argument of a call as the card shows it: «Куда: prod (Superset prod)»."""

    label: str
    value: str


class CardFieldChange(BaseModel):
    """One changed field on the card, with the values the server compared (data: text only)."""

    label: str  # in words: «CSS», «фильтры»
    field: str  # the dotted key
    before: str | None  # the target's value; None: it has no such key
    after: str | None  # the source's value
    diff: str | None  # unified line diff target → source
    truncated: bool = False  # a value was cut at its bound
    omitted: bool = False  # values left out (the plan's or the card's budget was spent)


class CardObjectChanges(BaseModel):
    """An object the plan changes, with its fields: «дашборд «Energy KPIs»: изменить»."""

    title: str
    fields: list[CardFieldChange]


class EditChoice(BaseModel):
    """One value a person may pick on an editable card: «staging (Superset staging)»."""

    value: str
    label: str


class CardEdit(BaseModel):
    """An argument the card lets a person change (:mod:`sstools.agent.card.edits`): pick one of
    ``choices``, keep a subset of them, or write a text of at most ``max_length``. With ``key``
    it is one entry of a mapping: the source database whose target connection is picked."""

    field: str
    label: str
    kind: Literal["choice", "subset", "text"]
    value: str | list[str]
    choices: list[EditChoice] = []
    max_length: int | None = None
    key: str | None = None


class GuardrailDecision(BaseModel):
    level: RiskLevel
    tone: Tone
    kind: ToolKind
    env_id: str | None
    stage: Stage | None
    permission: str  # "granted" (denied calls never reach a decision card)
    impact: str | None
    prompt: str
    needs_confirmation: bool
    # From the plan, when the write applies one: what it changes, and the digest the approval
    # is bound to (the server refuses the apply if the target moved since).
    objects: list[str] = []
    digest: str | None = None
    # The plan's changed fields with their values, shown collapsed under the impact line.
    changes: list[CardObjectChanges] = []
    # The call's arguments in words, named from the page's context and the environments registry.
    arguments: list[CardArgument] = []
    # What the person may change before deciding: the server plans the edited call again.
    edits: list[CardEdit] = []
    # The card may be approved «for similar ones» (see :func:`may_approve_similar`).
    similar: bool = False


_ALWAYS_DANGEROUS = frozenset({"run_backup"})


def decide(
    tool: ToolSpec,
    args: ToolArgs,
    env_id: str | None,
    environments: EnvironmentRegistry,
    *,
    confirm_reads: bool,
    impact: str | None = None,
) -> GuardrailDecision:
    kind = tool.kind_for(args)
    env = environments[env_id] if env_id is not None and env_id in environments else None
    stage = env.stage if env else None
    env_name = env.name if env else (env_id or "")
    if kind is ToolKind.read:
        level, tone, prompt = RiskLevel.safe, Tone.success, texts.PROMPT_READ
    elif stage is Stage.prod:
        level, tone = RiskLevel.dangerous, Tone.destructive
        prompt = texts.PROMPT_PRODUCTION.format(env=env_name)
    elif tool.name in _ALWAYS_DANGEROUS:
        level, tone = RiskLevel.dangerous, Tone.destructive
        prompt = texts.PROMPT_BACKUP.format(env=env_name)
    elif stage is None:
        level, tone, prompt = RiskLevel.guarded, Tone.warning, texts.PROMPT_WRITE_GIT
    else:
        level, tone = RiskLevel.guarded, Tone.info
        prompt = texts.PROMPT_WRITE_STAGE.format(stage=stage.value, env=env_name)
    return GuardrailDecision(
        level=level,
        tone=tone,
        kind=kind,
        env_id=env_id,
        stage=stage,
        permission="granted",
        impact=impact if kind is ToolKind.write else None,
        prompt=prompt,
        needs_confirmation=kind is ToolKind.write or confirm_reads,
    )
