"""``/approvals`` and ``/approvals/<id>``: writes waiting for a second person, and one request's
page — the link a requester shares.

The page shows what the card showed (the tool in words, the environment, the impact, the objects
by name, the diffs, the arguments), who asked and when, and until when it waits; a person who may
approve it gets «Одобрить» / «Отклонить» (``static/approvals.js`` posts them to
``POST /api/approvals/{id}``, the JSON twin, and follows the request's state). Both kinds of
request show here: an agent card's (``confirmations``) and a write the domain API held
(``write_requests``, whose decision ``/api/approvals`` relays). Superset's text (names, CSS, SQL)
is escaped by the template.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sstools import clock
from sstools.auth.roles import Role
from sstools.auth.tokens import Caller
from sstools.domain.deploy.models import FieldChange
from sstools.environments import Stage
from sstools.http.approvals import Bar, bar, may_decide
from sstools.http.deps import ServicesDep, SessionDep
from sstools.http.request_record import RequestRecord, request_record
from sstools.http.services import Services
from sstools.storage import write_requests as held_requests
from sstools.storage.confirmations import requested_by
from sstools.storage.models import Confirmation, WriteRequest
from sstools.storage.write_requests import RequestStatus
from sstools.web._kit import PageUser, environment, render
from sstools.web.compare_page import FieldView, field_view
from sstools.web.strings import UI

router = APIRouter(include_in_schema=False)

_WAITING = "awaiting_second"


@dataclass(frozen=True)
class ObjectView:
    title: str
    fields: list[FieldView]


@dataclass(frozen=True)
class RequestView:
    """One request as the page shows it, an agent card's or a held write's: who asked, when and
    who decided (``record``), what it does, and where it stands for the viewer; ``state`` is a key
    of the catalogue's words."""

    record: RequestRecord
    title: str
    env_name: str | None
    production: bool
    prompt: str
    impact: str | None
    objects: list[str]
    changes: list[ObjectView]
    arguments: list[tuple[str, str]]
    state: str
    can_approve: bool
    why_not: str | None  # why the viewer may not decide, in words
    agent: bool  # asked through the agent (its conversation goes on), else through the API


def _changes(decision: dict[str, Any]) -> list[ObjectView]:
    out = []
    for one in decision.get("changes") or []:
        fields = [field_view(FieldChange.model_validate(raw)) for raw in one.get("fields") or []]
        out.append(ObjectView(title=str(one.get("title", "")), fields=fields))
    return out


def _state(row: Confirmation) -> str:
    if row.status == _WAITING and row.expires_at <= clock.now():
        return "expired"  # marked so at the next read of its conversation or the API
    return row.status


def _why_not(barred: Bar | None, user: Caller, role: Role) -> str | None:
    """What keeps the viewer from deciding, in words."""
    if barred is Bar.role:
        return UI["approval_not_your_role"].format(
            role=UI[f"role_{role.value}"], yours=UI[f"role_{user.role.value}"]
        )
    return None if barred is None else UI[f"approval_{barred.value}"]


def _first_not_yours(first: bool, row: WriteRequest, user: Caller) -> str | None:
    return UI["approval_first_not_yours"] if first and row.requester_id != user.uid else None


def request_view(row: Confirmation, user: Caller, env_name: str | None) -> RequestView:
    event: dict[str, Any] = row.event
    decision: dict[str, Any] = event.get("decision") or {}
    record = request_record(row)
    state = _state(row)
    why_not = _why_not(bar(user, row), user, record.approver_role)
    return RequestView(
        record=record,
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
        can_approve=state == _WAITING and why_not is None,
        why_not=why_not if state == _WAITING else None,
        agent=True,
    )


def held_view(
    row: WriteRequest, user: Caller, services: Services, env_name: str | None
) -> RequestView:
    """A write the domain API held (``write_requests``): its plan is on record by its digest."""
    state = row.status
    first = state == RequestStatus.awaiting_first  # held by an MCP host, for its person's word
    if state == RequestStatus.running:
        state = RequestStatus.approved  # its write is being started
    env = services.environments.get(row.env_id)
    record = request_record(row)
    why_not = _why_not(bar(user, row), user, record.approver_role)
    return RequestView(
        record=record,
        title=row.title,
        env_name=env_name,
        production=env is not None and env.stage is Stage.prod,
        prompt=UI["approval_mcp_prompt" if first else "approval_held_prompt"],
        impact=None,
        objects=list(row.objects),
        changes=[],
        arguments=[],
        state=state,
        can_approve=may_decide(row, user),
        why_not=why_not if state == _WAITING else _first_not_yours(first, row, user),
        agent=False,
    )


async def waiting_views(
    session: AsyncSession, services: Services, user: Caller
) -> list[RequestView]:
    """What waits that ``user`` may approve or asked for, both kinds, soonest to expire first."""
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
    for held in await held_requests.waiting(session, clock.now(), services.environments):
        env = services.environments.get(held.env_id)
        one = held_view(held, user, services, env.name if env else None)
        if one.can_approve or held.requester_id == user.uid:
            views.append(one)
    return sorted(views, key=lambda one: one.record.expires_at)


@router.get("/approvals")
async def approvals_list(
    request: Request, services: ServicesDep, session: SessionDep, user: PageUser
) -> HTMLResponse:
    views = await waiting_views(session, services, user)
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
    if row is not None and row.first_approved_by is not None:
        known = row.env_id in services.environments if row.env_id else False
        env = environment(services, row.env_id if known else None)
        view = request_view(row, user, env.name if known else None)
        return render(request, "approval.html", user, services, env, request_view=view)
    held = await held_requests.current(session, confirmation_id, clock.now(), services.environments)
    if held is None:
        raise HTTPException(404, UI["error_not_found"])
    known = held.env_id in services.environments
    env = environment(services, held.env_id if known else None)
    view = held_view(held, user, services, env.name if known else None)
    return render(request, "approval.html", user, services, env, request_view=view)
