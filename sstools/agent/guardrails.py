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

import re
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel

from sstools.agent import texts
from sstools.agent.context import ObjectType
from sstools.agent.texts import answers as answer_texts
from sstools.agent.tools import CallScope, ToolArgs, ToolKind, ToolSpec
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
    """An argument the card lets a person change (:mod:`sstools.agent.card_edits`): pick one of
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


_MAX_CARD_OBJECTS = 20


def plan_objects(preview: object) -> list[str]:
    """«дашборд «Energy KPIs»: изменить (css)» for each object a plan would create or change."""
    if not isinstance(preview, dict) or not isinstance(preview.get("objects"), list):
        return []
    lines = []
    for change in preview["objects"]:
        if not isinstance(change, dict) or change.get("action") not in texts.PLAN_ACTIONS:
            continue
        fields = [str(field) for field in change.get("fields") or []][:5]
        lines.append(
            texts.plan_object(
                kind=str(change.get("kind")),
                name=str(change.get("name", ""))[:200],
                action=str(change["action"]),
                fields=fields,
            )
        )
    if len(lines) > _MAX_CARD_OBJECTS:
        rest = len(lines) - _MAX_CARD_OBJECTS
        lines = [*lines[:_MAX_CARD_OBJECTS], texts.PLAN_MORE.format(count=rest)]
    return lines


_MAX_CARD_FIELDS = 10
# The card's values in all (UTF-8 bytes): past it a field is named without its values.
_CARD_VALUES_MAX = 64 * 1024


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _card_field(change: dict[str, Any], left: int) -> tuple[CardFieldChange, int]:
    before, after, diff = (_text(change.get(key)) for key in ("before", "after", "diff"))
    size = sum(len(text.encode()) for text in (before, after, diff) if text is not None)
    omitted = change.get("omitted") is True or size > left
    one = CardFieldChange(
        label=str(change.get("label") or change.get("field") or "")[:200],
        field=str(change.get("field") or "")[:500],
        before=None if omitted else before,
        after=None if omitted else after,
        diff=None if omitted else diff,
        truncated=change.get("truncated") is True,
        omitted=omitted,
    )
    return one, left if omitted else left - size


def plan_changes(preview: object) -> list[CardObjectChanges]:
    """Each object the plan updates with its fields' values, as the server computed them (the
    plan's ``changes``); at most 20 objects of 10 fields, 64 KB of values in all."""
    if not isinstance(preview, dict) or not isinstance(preview.get("objects"), list):
        return []
    out: list[CardObjectChanges] = []
    left = _CARD_VALUES_MAX
    for change in preview["objects"]:
        if len(out) >= _MAX_CARD_OBJECTS:
            break
        if not isinstance(change, dict) or not isinstance(change.get("changes"), list):
            continue
        fields = []
        for one in change["changes"][:_MAX_CARD_FIELDS]:
            if isinstance(one, dict):
                shown, left = _card_field(one, left)
                fields.append(shown)
        if fields:
            title = texts.plan_object(
                kind=str(change.get("kind")),
                name=str(change.get("name", ""))[:200],
                action=str(change.get("action")),
                fields=[],
            )
            out.append(CardObjectChanges(title=title, fields=fields))
    return out


def plan_impact(preview: object) -> dict[str, object]:
    """The card's fields a preview fills: the impact line, the objects, their changes and the
    plan's digest."""
    digest = preview.get("digest") if isinstance(preview, dict) else None
    return {
        "impact": impact_text(preview),
        "objects": plan_objects(preview),
        "changes": plan_changes(preview),
        "digest": digest if isinstance(digest, str) else None,
    }


def _dashboards(preview: dict[str, Any], action: str) -> int:
    objects = preview.get("objects")
    if not isinstance(objects, list):
        return 0
    return sum(
        1
        for one in objects
        if isinstance(one, dict) and one.get("kind") == "dashboard" and one.get("action") == action
    )


def _charts_taken_off(preview: dict[str, Any]) -> int:
    charts = preview.get("unresolved_charts")
    if not isinstance(charts, list):
        return 0
    return sum(1 for one in charts if isinstance(one, dict) and one.get("removed_from_target"))


def impact_text(preview: object) -> str:
    """«1 дашборд будет создан» or «3 дашборда будут изменены» from a preview answer; honest
    when it cannot tell."""
    if isinstance(preview, dict):
        # Every plan counts its changed dashboards (created and, in a rollback, deleted ones
        # included); its `dashboards` list holds unchanged ones too.
        counted = preview.get("dashboards_changed")
        if isinstance(counted, int):
            created, deleted = _dashboards(preview, "create"), _dashboards(preview, "delete")
            changed = max(counted - created - deleted, 0)
            impact = texts.dashboards_impact(created=created, changed=changed, deleted=deleted)
            removed = _charts_taken_off(preview)
            return f"{impact}; {texts.charts_removed(removed)}" if removed else impact
    return texts.IMPACT_UNKNOWN


NoCard = Literal["no_plan", "not_applicable", "changes_nothing"]


def no_card_because(preview: dict[str, Any] | None) -> NoCard | None:
    """Why a write's plan rules out a card (None: show it): a card only for what can succeed."""
    if preview is None or not isinstance(preview.get("digest"), str):
        return "no_plan"  # without its digest no plan can be applied: the server refuses it
    if preview.get("applicable") is False:
        return "not_applicable"
    objects = preview.get("objects")
    changing = isinstance(objects, list) and any(
        isinstance(one, dict) and one.get("action") in texts.PLAN_ACTIONS for one in objects
    )
    if not changing and preview.get("dashboards_changed") == 0:
        return "changes_nothing"
    return None


_CARD_VALUE_MAX = 300
_TASK_ID = re.compile(r"[0-9a-f]{32}")
_CARD_SQL_MAX = 4000
# Arguments that name an environment: shown with the registry's name beside the id.
_ENV_FIELDS = frozenset({"target_env_id", "source_env_id", "env_id"})


def env_label(env_id: str, environments: EnvironmentRegistry) -> str:
    env = environments.get(env_id)
    return answer_texts.CARD_ENV.format(id=env_id, name=env.name) if env else env_id


def dashboard_label(
    dashboard_id: int, scope: CallScope, object_name: str | None, *, other: bool = True
) -> str:
    """«Отчёт (#6)» for the page's dashboard; ``other``: one that is not is said to be not."""
    page_id = scope.object_id if scope.object_type is ObjectType.dashboard else None
    if page_id is None:
        return f"#{dashboard_id}"
    page = answer_texts.CARD_OBJECT.format(name=object_name, id=page_id) if object_name else None
    if page_id == dashboard_id:
        return page or f"#{dashboard_id}"
    if not other:
        return f"#{dashboard_id}"
    # Only a dashboard the person named gets this far (graph: turn.not_the_page_object).
    return texts.NOT_THE_PAGE_DASHBOARD.format(given=dashboard_id, page=page or f"#{page_id}")


def _value(
    field: str,
    value: object,
    scope: CallScope,
    object_name: str | None,
    environments: EnvironmentRegistry,
) -> str:
    if isinstance(value, bool):
        return texts.YES if value else texts.NO
    if field in _ENV_FIELDS and isinstance(value, str):
        return env_label(value, environments)
    if field == "dashboard_id" and isinstance(value, int):
        return dashboard_label(value, scope, object_name)
    if field == "dashboard_ids" and isinstance(value, list):
        # A list with the page's dashboard in it names the others on purpose.
        other = scope.object_id not in value
        return ", ".join(
            dashboard_label(int(one), scope, object_name, other=other) for one in value
        )
    if field == "object_type" and isinstance(value, str):
        return answer_texts.CARD_OBJECT_TYPES.get(value, value)
    if field == "task_id" and isinstance(value, str) and _TASK_ID.fullmatch(value):
        return value[:8]  # as people quote a task; the API takes these 8 digits too
    if isinstance(value, list):
        return ", ".join(str(one) for one in value)
    return str(value)


def card_arguments(
    tool: ToolSpec,
    args: ToolArgs,
    scope: CallScope,
    object_name: str | None,
    environments: EnvironmentRegistry,
) -> list[CardArgument]:
    """The call's arguments as labelled values; what it takes from the page (the dashboard in
    context, the environment it acts in) is shown too, since that is what it will act on."""
    fields = type(args).model_fields
    given = {
        field: value
        for field, value in args.model_dump(exclude_none=True).items()
        if value not in ([], "")
        and (
            fields[field].is_required()
            or value != fields[field].get_default(call_default_factory=True)
        )
    }
    out: list[CardArgument] = []
    context_dashboard = scope.object_type is ObjectType.dashboard and scope.object_id is not None
    if "dashboard_id" in fields and "dashboard_id" not in given and context_dashboard:
        given = {"dashboard_id": scope.object_id, **given}
    if "dashboard_ids" in fields and not given.get("dashboard_ids") and context_dashboard:
        given = {**given, "dashboard_ids": [scope.object_id]}
    for field, value in given.items():
        if field == "database_mapping":
            continue  # the plan names the databases (card_edits.with_plan), never their UUIDs
        label = answer_texts.CARD_LABELS.get(field, answer_texts.CARD_OTHER.format(name=field))
        if tool.name == "create_branch" and field == "name":
            label = answer_texts.CARD_BRANCH
        text = _value(field, value, scope, object_name, environments)
        limit = _CARD_SQL_MAX if field == "sql" else _CARD_VALUE_MAX  # a write's SQL, in full
        out.append(CardArgument(label=label, value=text[:limit]))
    # The page's environment: the source of a call that has a target, else where it acts.
    named = {"source_env_id", "git_ref"} if tool.target_env else {"env_id"}
    if tool.needs_env and scope.env_id is not None and not named & given.keys():
        label = answer_texts.CARD_SOURCE if tool.target_env else answer_texts.CARD_ENVIRONMENT
        out.append(CardArgument(label=label, value=env_label(scope.env_id, environments)))
    return out
