"""What a plan does, in the card's words: the impact line, the objects it creates or changes,
their fields' values, and why a plan rules out a card."""

from __future__ import annotations

from typing import Literal

from sstools.agent import texts
from sstools.agent.card.plan import PlannedField, PlanView
from sstools.agent.guardrails import CardFieldChange, CardObjectChanges
from sstools.texts import deploy as deploy_texts

_MAX_CARD_OBJECTS = 20
_MAX_CARD_FIELDS = 10
# The card's values in all (UTF-8 bytes): past it a field is named without its values.
_CARD_VALUES_MAX = 64 * 1024


def plan_objects(plan: PlanView) -> list[str]:
    """«дашборд «Energy KPIs»: изменить (css)» for each object a plan would create or change."""
    lines = [
        texts.plan_object(
            kind=change.kind, name=change.name[:200], action=change.action, fields=change.fields[:5]
        )
        for change in plan.objects
        if change.action in texts.PLAN_ACTIONS
    ]
    if len(lines) > _MAX_CARD_OBJECTS:
        rest = len(lines) - _MAX_CARD_OBJECTS
        lines = [*lines[:_MAX_CARD_OBJECTS], texts.PLAN_MORE.format(count=rest)]
    if plan.translated and plan.target_release:  # the target runs an older Superset
        fields = [(one.field[:100], one.objects) for one in plan.translated[:_MAX_CARD_FIELDS]]
        lines.append(deploy_texts.translated(plan.target_release[:20], fields))
    return lines


def _card_field(change: PlannedField, left: int) -> tuple[CardFieldChange, int]:
    values = (change.before, change.after, change.diff)
    size = sum(len(text.encode()) for text in values if text is not None)
    omitted = change.omitted or size > left
    one = CardFieldChange(
        label=(change.label or change.field)[:200],
        field=change.field[:500],
        before=None if omitted else change.before,
        after=None if omitted else change.after,
        diff=None if omitted else change.diff,
        truncated=change.truncated,
        omitted=omitted,
    )
    return one, left if omitted else left - size


def plan_changes(plan: PlanView) -> list[CardObjectChanges]:
    """Each object the plan updates with its fields' values, as the server computed them (the
    plan's ``changes``); at most 20 objects of 10 fields, 64 KB of values in all."""
    out: list[CardObjectChanges] = []
    left = _CARD_VALUES_MAX
    for change in plan.objects:
        if len(out) >= _MAX_CARD_OBJECTS:
            break
        fields = []
        for one in change.changes[:_MAX_CARD_FIELDS]:
            shown, left = _card_field(one, left)
            fields.append(shown)
        if fields:
            title = texts.plan_object(
                kind=change.kind, name=change.name[:200], action=change.action, fields=[]
            )
            out.append(CardObjectChanges(title=title, fields=fields))
    return out


def _dashboards(plan: PlanView, action: str) -> int:
    return sum(1 for one in plan.objects if one.kind == "dashboard" and one.action == action)


def impact_text(plan: PlanView | None) -> str:
    """«1 дашборд будет создан» or «3 дашборда будут изменены» from a plan; honest when it
    cannot tell."""
    # Every plan counts its changed dashboards (created and, in a rollback, deleted ones
    # included); its `dashboards` list holds unchanged ones too.
    if plan is None or plan.dashboards_changed is None:
        return texts.IMPACT_UNKNOWN
    created, deleted = _dashboards(plan, "create"), _dashboards(plan, "delete")
    changed = max(plan.dashboards_changed - created - deleted, 0)
    impact = texts.dashboards_impact(created=created, changed=changed, deleted=deleted)
    removed = sum(1 for one in plan.unresolved_charts if one.removed_from_target)
    return f"{impact}; {texts.charts_removed(removed)}" if removed else impact


NoCard = Literal["no_plan", "not_applicable", "changes_nothing"]


def no_card_because(plan: PlanView | None) -> NoCard | None:
    """Why a write's plan rules out a card (None: show it): a card only for what can succeed."""
    if plan is None or plan.digest is None:
        return "no_plan"  # without its digest no plan can be applied: the server refuses it
    if plan.applicable is False:
        return "not_applicable"
    changing = any(one.action in texts.PLAN_ACTIONS for one in plan.objects)
    if not changing and plan.dashboards_changed == 0:
        return "changes_nothing"
    return None
