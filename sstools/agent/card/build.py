"""The card of a call that needs a person, built once, after its plan (the preview) is known:
the guardrail's decision with the arguments in words, the edits it offers, whether it may be
approved «for similar ones», and — for a write that applies a plan — the impact, the objects and
their changes, the digest the approval is bound to, and the databases a mapping chose."""

from __future__ import annotations

from collections.abc import Callable

from sstools.agent import texts
from sstools.agent.card.arguments import card_arguments
from sstools.agent.card.edits import database_edits, offered_edits
from sstools.agent.card.impact import impact_text, plan_changes, plan_objects
from sstools.agent.card.plan import PlanView
from sstools.agent.guardrails import CardArgument, GuardrailDecision
from sstools.agent.invocation import ToolCall
from sstools.agent.texts import answers as answer_texts
from sstools.agent.tools import CallScope, ToolArgs, ToolKind, ToolSpec
from sstools.environments import EnvironmentRegistry, Stage


def build_card(
    tool: ToolSpec,
    args: ToolArgs,
    decision: GuardrailDecision,
    scope: CallScope,
    object_name: str | None,
    environments: EnvironmentRegistry,
    plan: PlanView | None,
) -> GuardrailDecision:
    """The card's decision with what the person reads and may do on it (``plan``: the write's
    plan, None for a call that applies none)."""
    arguments = card_arguments(tool, args, scope, object_name, environments)
    edits = offered_edits(tool, args, scope, object_name, environments)
    similar = may_approve_similar(tool, decision.kind, decision.stage)
    update: dict[str, object] = {"similar": similar}
    if plan is not None:
        update |= {
            "impact": impact_text(plan),
            "objects": plan_objects(plan),
            "changes": plan_changes(plan),
            "digest": plan.digest,
        }
        arguments = [*arguments, *_mapped_databases(plan)]
        if "database_mapping" in tool.editable:
            edits = [*edits, *database_edits(plan)]
    return decision.model_copy(update={**update, "arguments": arguments, "edits": edits})


def _mapped_databases(plan: PlanView) -> list[CardArgument]:
    """The databases a mapping points elsewhere, in names: «Аналитика» → «Склад DWH»."""
    mapped = [
        texts.CARD_DATABASE_MAPPED.format(source=row.source_name, target=row.target_name)
        for row in plan.databases
        if row.matched_by == "mapping"
    ]
    label = answer_texts.CARD_LABELS["database_mapping"]
    return [CardArgument(label=label, value="; ".join(mapped))] if mapped else []


def approved_ahead(
    call: ToolCall,
    tool: ToolSpec,
    decision: GuardrailDecision,
    standing: Callable[[str, str | None, ToolKind], bool],
) -> bool:
    """Whether an earlier dev card's «одобрять похожие» (``standing``, read now) covers this
    call: never one the person just edited, nor one choosing connections (a database mapping)
    that no card showed the person."""
    return (
        decision.needs_confirmation
        and decision.similar
        and not call.get("edited")
        and not call["args"].get("database_mapping")
        and standing(tool.name, decision.env_id, decision.kind)
    )


def may_approve_similar(tool: ToolSpec, kind: ToolKind, stage: Stage | None) -> bool:
    """«Одобрять похожие до конца сеанса»: only a write to a dev environment that applies a plan
    the server makes (a deploy, a migration, a restore, a rollback: bounded to dashboards, bound
    to a fresh digest each time) — never SQL, a backup, git, staging or prod."""
    return stage is Stage.dev and kind is ToolKind.write and tool.preview is not None
