"""A request for a second person as ``/api/approvals`` shows it: an agent card waiting for a
second approval (:func:`view`), or a write the domain API held (:func:`held_view`)."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import NamedTuple

from pydantic import BaseModel

from sstools.agent.card.decode import shown_card
from sstools.agent.guardrails import CardArgument, CardObjectChanges
from sstools.agent.routes import held_writes
from sstools.agent.run import approvals
from sstools.auth.roles import Role
from sstools.auth.tokens import Caller
from sstools.http.approvals import may_decide
from sstools.http.request_record import request_record
from sstools.http.services import Services
from sstools.storage.confirmations import ConfirmationStatus
from sstools.storage.models import Confirmation, WriteRequest


class ApprovalView(BaseModel):
    """A request as its page shows it: the card's content, who asked, and where it stands."""

    id: str
    title: str  # the tool in words
    env_id: str | None
    env_name: str | None
    stage: str | None
    prompt: str
    impact: str | None
    objects: list[str]
    changes: list[CardObjectChanges]
    arguments: list[CardArgument]
    digest: str | None
    requested_by: str
    requested_at: datetime
    first_approved_at: datetime | None
    expires_at: datetime
    status: ConfirmationStatus
    approver_role: Role
    decided_by: str | None
    decided_at: datetime | None
    reason: str | None
    can_approve: bool  # the caller may decide it now
    link: str
    task_id: str | None = None  # the task its approval started, once started


class _Shown(NamedTuple):
    """What the person deciding is shown of the request: its card, or a held write's words."""

    prompt: str
    stage: str | None
    impact: str | None
    objects: list[str]
    changes: list[CardObjectChanges]
    arguments: list[CardArgument]
    digest: str | None


def _view(
    row: Confirmation | WriteRequest,
    user: Caller,
    services: Services,
    *,
    title: str,
    status: ConfirmationStatus,
    shown: _Shown,
) -> ApprovalView:
    record = request_record(row)
    env = services.environments.get(record.env_id) if record.env_id else None
    return ApprovalView(
        **asdict(record),
        **shown._asdict(),
        title=title,
        env_name=env.name if env else None,
        status=status,
        can_approve=may_decide(row, user),
        link=approvals.approval_link(record.id),
    )


def view(confirmation: Confirmation, user: Caller, services: Services) -> ApprovalView:
    """An agent card waiting for (or past) its second approval."""
    card = shown_card(confirmation)
    decision = card.decision
    shown = _Shown(
        prompt=decision.prompt,
        stage=decision.stage.value if decision.stage else None,
        impact=decision.impact,
        objects=decision.objects,
        changes=decision.changes,
        arguments=decision.arguments,
        digest=decision.digest,
    )
    title = card.title or confirmation.tool
    status = ConfirmationStatus(confirmation.status)
    return _view(confirmation, user, services, title=title, status=status, shown=shown)


def held_view(row: WriteRequest, user: Caller, services: Services) -> ApprovalView:
    """A write the domain API held, as a request of this list: asked outside any chat, so it
    has the requester's words for it but no card (no diffs, no arguments) and no approval of
    theirs on record."""
    env = services.environments.get(row.env_id)
    stage = env.stage.value if env else None
    shown = _Shown(row.title, stage, None, list(row.objects), [], [], row.digest)
    status = held_writes.status_of(row)
    return _view(row, user, services, title=row.title, status=status, shown=shown)
