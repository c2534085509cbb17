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


def impact_text(preview: object) -> str:
    """«3 дашборда будут изменены» from a preview answer; honest when it cannot tell."""
    if isinstance(preview, dict):
        for key in ("dashboards_changed", "dashboards", "changed"):
            value = preview.get(key)
            if isinstance(value, list):
                value = len(value)
            if isinstance(value, int):
                return texts.dashboards_changed(value)
        if isinstance(preview.get("impact"), str):
            return str(preview["impact"])[:300]
    return texts.IMPACT_UNKNOWN
