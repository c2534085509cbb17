"""``/dashboards/{id}/compare``: what deploying a dashboard from one environment to another would
change, field by field with its values — the plan the deploy card shows, read-only.

A plan writes nothing (``POST /api/deploy/plan`` is its JSON twin): the page only reads both
environments. Values are Superset's text (CSS, SQL, names): the template escapes them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from sstools.domain.deploy import DeployError, DeploySource, PlanRequest, make_plan
from sstools.domain.deploy.models import FieldChange, ObjectChange, Plan
from sstools.http.deps import ServicesDep, SupersetId
from sstools.ids import ENV_ID_PATTERN
from sstools.superset import SupersetError
from sstools.web._kit import PageEnv, PageUser, agent_link, environment, render
from sstools.web.strings import UI

router = APIRouter(include_in_schema=False)

TargetEnv = Annotated[str, Query(max_length=64, pattern=ENV_ID_PATTERN)]
LineKind = Literal["hunk", "add", "del", "same"]


@dataclass(frozen=True)
class DiffLine:
    kind: LineKind
    text: str


@dataclass(frozen=True)
class FieldView:
    label: str
    field: str
    lines: list[DiffLine]
    truncated: bool
    omitted: bool


@dataclass(frozen=True)
class ObjectView:
    kind: str  # in words: «дашборд»
    name: str
    action: str  # «изменить», «создать», «удалить»
    deleted: bool
    fields: list[FieldView]


def _said(value: str | None) -> str:
    return UI["diff_absent"] if value is None else value or UI["diff_empty"]


def diff_lines(change: FieldChange) -> list[DiffLine]:
    """The field's line diff as - / + lines; two one-line values as «-before» and «+after»
    (a hunk header says nothing there)."""
    one_line = not any("\n" in (value or "") for value in (change.before, change.after))
    if change.diff and not (one_line and not change.truncated):
        raw = change.diff.split("\n")
    else:
        raw = [f"-{line}" for line in _said(change.before).split("\n")]
        raw += [f"+{line}" for line in _said(change.after).split("\n")]
    lines = []
    for line in raw:
        kind: LineKind = (
            "hunk"
            if line.startswith("@@")
            else "add"
            if line.startswith("+")
            else "del"
            if line.startswith("-")
            else "same"
        )
        lines.append(DiffLine(kind, line))
    return lines


def field_view(change: FieldChange) -> FieldView:
    """One changed field as the page shows it: its diff, unless its values were left out."""
    return FieldView(
        label=change.label,
        field=change.field,
        lines=[] if change.omitted else diff_lines(change),
        truncated=change.truncated,
        omitted=change.omitted,
    )


def _view(change: ObjectChange) -> ObjectView:
    fields = [field_view(one) for one in change.changes]
    return ObjectView(
        kind=UI.get(f"plan_kind_{change.kind}", change.kind),
        name=change.name,
        action=UI.get(f"plan_action_{change.action}", change.action),
        deleted=change.action == "delete",
        fields=fields,
    )


def changed_objects(plan: Plan) -> list[ObjectView]:
    """The objects the plan creates, changes or deletes, in the plan's order."""
    return [_view(one) for one in plan.changes]


@router.get("/dashboards/{dashboard_id}/compare")
async def compare_page(
    request: Request,
    dashboard_id: SupersetId,
    services: ServicesDep,
    user: PageUser,
    target: TargetEnv,
    env: PageEnv,
) -> HTMLResponse:
    target_env = environment(services, target)
    plan: Plan | None = None
    error: str | None = None
    request_body = PlanRequest(
        dashboard_ids=[dashboard_id],
        source=DeploySource(env_id=env.id),
        target_env_id=target_env.id,
    )
    try:
        planned = await make_plan(
            request_body, services.superset, services.environments, services.git
        )
        plan = planned.plan
    except (DeployError, SupersetError) as exc:  # no git ref here: the repository is not read
        error = getattr(exc, "message", None) or str(exc)
    title = plan.dashboards[0].name if plan and plan.dashboards else f"#{dashboard_id}"
    objects = changed_objects(plan) if plan else []
    route = f"/dashboards/{dashboard_id}/compare"
    return render(
        request,
        "compare.html",
        user,
        services,
        env,
        dashboard_id=dashboard_id,
        title=title,
        target_env=target_env,
        plan=plan,
        objects=objects,
        unchanged=sum(1 for one in plan.objects if one.action == "unchanged") if plan else 0,
        error=error,
        ask=agent_link("dashboard", dashboard_id, title, env.id, route),
    )
