"""A request for a second person as ``/api/approvals`` shows it: an agent card waiting for a
second approval (:func:`view`), or a write the domain API held (:func:`held_view`)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from sstools.agent.card.decode import shown_card
from sstools.agent.guardrails import CardArgument, CardObjectChanges
from sstools.agent.routes import held_writes
from sstools.agent.run import approvals
from sstools.auth.roles import Role
from sstools.auth.tokens import Caller
from sstools.http.approvals import approver_role, may_decide
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


def view(confirmation: Confirmation, user: Caller, services: Services) -> ApprovalView:
    card = shown_card(confirmation)
    decision = card.decision
    env = services.environments.get(confirmation.env_id) if confirmation.env_id else None
    return ApprovalView(
        id=confirmation.id,
        title=card.title or confirmation.tool,
        env_id=confirmation.env_id,
        env_name=env.name if env else None,
        stage=decision.stage.value if decision.stage else None,
        prompt=decision.prompt,
        impact=decision.impact,
        objects=decision.objects,
        changes=decision.changes,
        arguments=decision.arguments,
        digest=decision.digest,
        requested_by=confirmation.username,
        requested_at=confirmation.created_at,
        first_approved_at=confirmation.first_approved_at,
        expires_at=confirmation.expires_at,
        status=ConfirmationStatus(confirmation.status),
        approver_role=approver_role(confirmation),
        decided_by=confirmation.second_by,
        decided_at=confirmation.second_at,
        reason=confirmation.reason,
        can_approve=may_decide(confirmation, user),
        link=approvals.approval_link(confirmation.id),
        task_id=confirmation.task_id,
    )


def held_view(row: WriteRequest, user: Caller, services: Services) -> ApprovalView:
    """A write the domain API held, as a request of this list: asked outside any chat, so it
    has the requester's words for it but no card (no diffs, no arguments)."""
    env = services.environments.get(row.env_id)
    return ApprovalView(
        id=row.id,
        title=row.title,
        env_id=row.env_id,
        env_name=held_writes.env_name(services, row),
        stage=env.stage.value if env else None,
        prompt=row.title,
        impact=None,
        objects=list(row.objects),
        changes=[],
        arguments=[],
        digest=row.digest,
        requested_by=row.requested_by,
        requested_at=row.created_at,
        first_approved_at=row.created_at,  # asking through the API is the requester's approval
        expires_at=row.expires_at,
        status=held_writes.status_of(row),
        approver_role=approver_role(row),
        decided_by=row.decided_by,
        decided_at=row.decided_at,
        reason=row.reason,
        can_approve=may_decide(row, user),
        link=approvals.approval_link(row.id),
        task_id=row.task_id,
    )
