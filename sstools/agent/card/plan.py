"""A write's plan as the card reads it: one typed view of a plan answer (``POST …/plan`` of a
deploy, migration, rollback or restore), decoded once. The answer comes from the server but
passes the model's arguments and other processes on the way: every field is read leniently,
and what is not of its shape is left out, never trusted."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError


def _text(value: object) -> str:
    return "" if value is None else str(value)


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _dicts(value: object) -> list[Any]:
    return [one for one in value if isinstance(one, dict)] if isinstance(value, list) else []


def _texts(value: object) -> list[str]:
    return [str(one) for one in value] if isinstance(value, list) else []


Text = Annotated[str, BeforeValidator(_text)]
TextOrNone = Annotated[str | None, BeforeValidator(_text_or_none)]
Flag = Annotated[bool, BeforeValidator(lambda value: value is True)]
Truthy = Annotated[bool, BeforeValidator(bool)]


class _Read(BaseModel):
    model_config = ConfigDict(extra="ignore")


class PlannedField(_Read):
    """One field a plan changes, with the values the server compared."""

    label: Text = ""
    field: Text = ""
    before: TextOrNone = None
    after: TextOrNone = None
    diff: TextOrNone = None
    truncated: Flag = False
    omitted: Flag = False


class PlannedObject(_Read):
    """An object of the plan: «дашборд «Energy KPIs»: изменить (css)»."""

    kind: Text = ""
    name: Text = ""
    action: Text = ""
    fields: Annotated[list[str], BeforeValidator(_texts)] = []
    changes: Annotated[list[PlannedField], BeforeValidator(_dicts)] = []


class PlannedChart(_Read):
    removed_from_target: Truthy = False


class PlannedDatabase(_Read):
    """A source database of the plan and the target connection its datasets will use."""

    source_name: TextOrNone = None
    target_name: TextOrNone = None
    target_uuid: TextOrNone = None
    matched_by: TextOrNone = None
    pinned: Truthy = False


class TargetDatabase(_Read):
    name: TextOrNone = None


class TranslatedField(_Read):
    """A field the plan took out of its files for the target's older Superset release."""

    field: Text = ""
    objects: Annotated[int, BeforeValidator(lambda v: v if isinstance(v, int) else 0)] = 0


class PlanView(_Read):
    """What the card and the refusals instead of a card read of a plan."""

    digest: TextOrNone = None
    applicable: Annotated[
        bool | None, BeforeValidator(lambda v: v if isinstance(v, bool) else None)
    ] = None
    dashboards_changed: Annotated[
        int | None, BeforeValidator(lambda v: v if isinstance(v, int) else None)
    ] = None
    summary: Text = ""
    objects: Annotated[list[PlannedObject], BeforeValidator(_dicts)] = []
    unresolved_charts: Annotated[list[PlannedChart], BeforeValidator(_dicts)] = []
    databases: Annotated[list[PlannedDatabase], BeforeValidator(_dicts)] = []
    target_databases: Annotated[list[TargetDatabase], BeforeValidator(_dicts)] = []
    source_release: TextOrNone = None
    target_release: TextOrNone = None
    translated: Annotated[list[TranslatedField], BeforeValidator(_dicts)] = []

    @classmethod
    def of(cls, answer: object) -> PlanView | None:
        """The plan in an answer; None when the answer is not one (no answer, or not an object)."""
        if not isinstance(answer, dict):
            return None
        try:
            return cls.model_validate(answer)
        except ValidationError:  # every field reads leniently: a shape no plan ever had
            return None
