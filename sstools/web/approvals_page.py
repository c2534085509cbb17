"""``/approvals`` and ``/approvals/<id>``: writes waiting for a second person, and one request's
page — the link a requester shares.

The page shows what the card showed (the tool in words, the environment, the impact, the objects
by name, the diffs, the arguments), who asked and when, and until when it waits; a person who may
approve it gets «Одобрить» / «Отклонить» (``static/approvals.js`` posts them to
``POST /api/approvals/{id}``, the JSON twin, and follows the request's state). Read from the
confirmations table only: Superset's text (names, CSS, SQL) is escaped by the template.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from sqlalchemy import select

from sstools import clock
from sstools.auth.roles import Role
from sstools.auth.tokens import Caller
from sstools.domain.deploy.models import FieldChange
from sstools.http.deps import ServicesDep, SessionDep
from sstools.storage.confirmations import requested_by
from sstools.storage.models import Confirmation
from sstools.web._kit import PageUser, environment, render
from sstools.web.compare_page import FieldView, diff_lines
from sstools.web.strings import UI

router = APIRouter(include_in_schema=False)

_WAITING = "awaiting_second"


@dataclass(frozen=True)
class ObjectView:
    title: str
    fields: list[FieldView]


@dataclass(frozen=True)
class RequestView:
    """One request as the page shows it; ``state`` is a key of the catalogue's words."""

    row: Confirmation
    title: str
    env_name: str | None
    production: bool
    prompt: str
    impact: str | None
    objects: list[str]
    changes: list[ObjectView]
    arguments: list[tuple[str, str]]
    state: str
    role: Role
    can_approve: bool
    why_not: str | None  # why the viewer may not decide, in words


def _changes(decision: dict[str, Any]) -> list[ObjectView]:
    out = []
    for one in decision.get("changes") or []:
        fields = []
        for raw in one.get("fields") or []:
            change = FieldChange.model_validate(raw)
            fields.append(
                FieldView(
                    label=change.label,
                    field=change.field,
                    lines=[] if change.omitted else diff_lines(change),
                    truncated=change.truncated,
                    omitted=change.omitted,
                )
            )
        out.append(ObjectView(title=str(one.get("title", "")), fields=fields))
    return out


def _state(row: Confirmation) -> str:
    if row.status == _WAITING and row.expires_at <= clock.now():
        return "expired"  # marked so at the next read of its conversation or the API
    return row.status


def request_view(row: Confirmation, user: Caller, env_name: str | None) -> RequestView:
    event: dict[str, Any] = row.event
    decision: dict[str, Any] = event.get("decision") or {}
    role = Role(row.approver_role) if row.approver_role else Role.admin
    state = _state(row)
    why_not = None
    if requested_by(row, user.uid):
        why_not = UI["approval_own"]
    elif user.username == row.username:  # an earlier account of this name asked
        why_not = UI["approval_namesake"]
    elif not user.role.allows(role):
        why_not = UI["approval_not_your_role"].format(
            role=UI[f"role_{role.value}"], yours=UI[f"role_{user.role.value}"]
        )
    return RequestView(
        row=row,
        title=str(event.get("title") or UI["tool_generic"]),
        env_name=env_name,
        production=decision.get("stage") == "prod",
        prompt=str(decision.get("prompt") or ""),
        impact=decision.get("impact"),
        objects=[str(line) for line in decision.get("objects") or []],
        changes=_changes(decision),
        arguments=[
            (str(one.get("label")), str(one.get("value")))
            for one in decision.get("arguments") or []
        ],
        state=state,
        role=role,
        can_approve=state == _WAITING and why_not is None,
        why_not=why_not if state == _WAITING else None,
    )


@router.get("/approvals")
async def approvals_list(
    request: Request, services: ServicesDep, session: SessionDep, user: PageUser
) -> HTMLResponse:
    rows = await session.scalars(
        select(Confirmation)
        .where(Confirmation.status == _WAITING)
        .order_by(Confirmation.first_approved_at)
        .limit(200)
    )
    views = []
    for row in rows:
        env = services.environments.get(row.env_id) if row.env_id else None
        one = request_view(row, user, env.name if env else None)
        if one.state == _WAITING and (one.can_approve or requested_by(row, user.uid)):
            views.append(one)
    env = environment(services, None)
    return render(request, "approvals.html", user, services, env, requests=views)


@router.get("/approvals/{confirmation_id}")
async def approval_page(
    request: Request,
    confirmation_id: str,
    services: ServicesDep,
    session: SessionDep,
    user: PageUser,
) -> HTMLResponse:
    row = await session.get(Confirmation, confirmation_id[:64])
    if row is None or row.first_approved_by is None:
        raise HTTPException(404, UI["error_not_found"])
    known = row.env_id in services.environments if row.env_id else False
    env = environment(services, row.env_id if known else None)
    view = request_view(row, user, env.name if known else None)
    return render(request, "approval.html", user, services, env, request_view=view)
