"""Cards a person can edit (issue 25 §2): which arguments of a call its card offers to change,
with their choices, and a person's edit checked against exactly those.

An edit runs nothing. The paused run resumes with the edited call, which the graph's ``assess``
step checks and plans again like any call the model made (role, environment, the page's object,
a fresh preview), so the new card carries its own impact and digest before «Подтвердить» is
possible; the model is told what the person changed when the call's result reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from sstools.agent import texts
from sstools.agent.card.arguments import dashboard_label, env_label, field_label
from sstools.agent.card.plan import PlanView
from sstools.agent.guardrails import CardEdit, EditChoice
from sstools.agent.texts import answers as answer_texts
from sstools.agent.tools import CallScope, ToolArgs, ToolSpec
from sstools.environments import EnvironmentRegistry
from sstools.errors import SstoolsError


class EditRefused(SstoolsError, ValueError):
    """An edit the card does not allow, named by its field (→ 422)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field if field == "args" else f"args.{field}"  # where the request has it
        self.message = message


@dataclass(frozen=True)
class EditedCall:
    """The call's arguments after a person's edit, and what changed in words (for the model)."""

    args: dict[str, Any]
    changes: str


def _page_dashboards(args: ToolArgs, scope: CallScope) -> list[int]:
    return scope.dashboards([int(one) for one in getattr(args, "dashboard_ids", None) or []])


def offered_edits(
    tool: ToolSpec,
    args: ToolArgs,
    scope: CallScope,
    object_name: str | None,
    environments: EnvironmentRegistry,
) -> list[CardEdit]:
    """What the card of this call lets a person change; a field with nothing to choose is left
    out (one dashboard, one environment to go to)."""
    out: list[CardEdit] = []
    for field in tool.editable:
        if field == "database_mapping":
            continue  # offered from the plan (database_edits): the target's databases are its
        label = field_label(tool, field)
        value = getattr(args, field, None)
        if field == "target_env_id" and isinstance(value, str):
            source = getattr(args, "source_env_id", None) or scope.env_id
            if getattr(args, "git_ref", None) or tool.name == "restore_backup":
                source = None  # from git or a backup: any environment may receive it
            choices = [
                EditChoice(value=env_id, label=env_label(env_id, environments))
                for env_id in environments
                if env_id != source
            ]
            if len(choices) > 1:
                out.append(
                    CardEdit(field=field, label=label, kind="choice", value=value, choices=choices)
                )
        elif field == "dashboard_ids":
            ids = _page_dashboards(args, scope)
            if len(ids) > 1:
                other = (
                    scope.object_id not in ids
                )  # a list with the page's names the rest on purpose
                choices = [
                    EditChoice(
                        value=str(one), label=dashboard_label(one, scope, object_name, other=other)
                    )
                    for one in ids
                ]
                shown = [str(one) for one in ids]
                out.append(
                    CardEdit(field=field, label=label, kind="subset", value=shown, choices=choices)
                )
        elif isinstance(value, str):
            limit = tool.args_model.model_json_schema()["properties"][field].get("maxLength")
            out.append(
                CardEdit(field=field, label=label, kind="text", value=value, max_length=limit)
            )
    return out


def database_edits(plan: PlanView) -> list[CardEdit]:
    """One choice per source database of the plan: the target connection its datasets use,
    among the target's connections, all by name (a name is unique in a Superset, and the model
    reads names, never UUIDs). Left out where the target has only the one it matched, or where
    the database is ``pinned``: its datasets exist there, and Superset's import cannot move them."""
    names = sorted({db.name for db in plan.target_databases if db.name})
    choices = [EditChoice(value=name, label=name) for name in names]
    return [
        CardEdit(
            field="database_mapping",
            key=row.source_name,
            label=texts.EDIT_DATABASE.format(name=row.source_name),
            kind="choice",
            value=row.target_name,
            choices=choices,
        )
        for row in plan.databases
        if row.source_name and row.target_name and not row.pinned
        if len(choices) > 1
    ]


def _checked(edit: CardEdit, given: object) -> object:
    allowed = {choice.value for choice in edit.choices}
    if edit.kind == "choice":
        if not isinstance(given, str) or given not in allowed:
            raise EditRefused(edit.field, texts.EDIT_NOT_A_CHOICE.format(label=edit.label))
        return given
    if edit.kind == "subset":
        if not isinstance(given, list) or not given:
            raise EditRefused(edit.field, texts.EDIT_EMPTY_SUBSET.format(label=edit.label))
        kept = [str(one) for one in given]
        if any(one not in allowed for one in kept) or len(set(kept)) != len(kept):
            raise EditRefused(edit.field, texts.EDIT_NOT_A_CHOICE.format(label=edit.label))
        return [int(one) for one in edit.value if one in kept]  # in the card's order
    if not isinstance(given, str) or not given.strip():
        raise EditRefused(edit.field, texts.EDIT_EMPTY_TEXT.format(label=edit.label))
    text = " ".join(given.split()) if edit.field != "message" else given.strip()
    if edit.max_length is not None and len(text) > edit.max_length:
        raise EditRefused(
            edit.field, texts.EDIT_TOO_LONG.format(label=edit.label, limit=edit.max_length)
        )
    return text


def apply_edit(
    tool: ToolSpec, card_args: dict[str, Any], edits: list[CardEdit], given: dict[str, Any]
) -> EditedCall:
    """The card's call with ``given`` applied: only the fields its card offered, each within
    its choices, the whole valid for the tool; at least one value must differ."""
    offered = {edit.field: edit for edit in edits if edit.key is None}
    rows = {edit.key: edit for edit in edits if edit.key is not None}  # one mapping's entries
    if not given:
        raise EditRefused("args", texts.EDIT_NOTHING)
    for field in given:
        if field not in offered and not (field == "database_mapping" and rows):
            label = answer_texts.CARD_LABELS.get(field, texts.EDIT_THIS_FIELD)
            raise EditRefused(field, texts.EDIT_NOT_EDITABLE.format(label=label))
    changed = {
        field: _checked(offered[field], value) for field, value in given.items() if field in offered
    }
    said: list[str] = []
    kept_mapping = card_args.get("database_mapping") or {}
    if "database_mapping" in given:
        if "target_env_id" in changed:  # the choices were the old target's connections
            raise EditRefused("database_mapping", texts.EDIT_MAPPING_WITH_TARGET)
        picked = _checked_mapping(rows, given["database_mapping"])
        changed["database_mapping"] = {**kept_mapping, **picked}
        said += [_said(rows[key], rows[key].value, value) for key, value in picked.items()]
    elif "target_env_id" in changed and kept_mapping:
        changed["database_mapping"] = None  # another target has other connections
    try:
        tool.args_model.model_validate({**card_args, **changed})
    except ValidationError as exc:
        field = str(exc.errors()[0]["loc"][0]) if exc.errors()[0]["loc"] else "args"
        label = (
            offered[field].label
            if field in offered
            else answer_texts.CARD_LABELS.get(field, texts.EDIT_THIS_FIELD)
        )
        raise EditRefused(field, texts.EDIT_INVALID.format(label=label)) from exc
    for field, value in changed.items():
        if field in offered:
            said.append(_said(offered[field], offered[field].value, value))
    said = [one for one in said if one]
    if not said:
        raise EditRefused(next(iter(given)), texts.EDIT_NOTHING)
    return EditedCall(args={**card_args, **changed}, changes="; ".join(said))


def _checked_mapping(rows: dict[str, CardEdit], given: object) -> dict[str, str]:
    """A mapping's picked entries: each a source database the card offered, each onto one of
    the target's databases it listed."""
    if not isinstance(given, dict) or not given:
        raise EditRefused("database_mapping", texts.EDIT_NOTHING)
    picked: dict[str, str] = {}
    for key, value in given.items():
        row = rows.get(str(key))
        if row is None:
            raise EditRefused(
                "database_mapping",
                texts.EDIT_NOT_A_CHOICE.format(label=answer_texts.CARD_LABELS["database_mapping"]),
            )
        picked[str(key)] = str(_checked(row, value))
    return picked


def _said(edit: CardEdit, old: object, new: object) -> str:
    """«Куда: prod → staging», or nothing when the value did not change."""
    before, after = _words(edit, old), _words(edit, new)
    if before == after:
        return ""
    return texts.EDIT_CHANGE.format(label=edit.label, old=before, new=after)


def _words(edit: CardEdit, value: object) -> str:
    """A value as the card shows it: the choice's label, the kept ones' labels, or the text."""
    labels = {choice.value: choice.label for choice in edit.choices}
    if isinstance(value, list):
        return ", ".join(labels.get(str(one), str(one)) for one in value)
    return labels.get(str(value), str(value))
