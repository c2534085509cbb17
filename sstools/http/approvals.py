"""What every route that takes a second person's decision shares: the decision's body, and who
may decide a write the domain API held (``/api/write-requests``, ``/api/approvals``, the page),
and which role a card's second approval needs (``/api/approvals``, the page)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, StringConstraints

from sstools.auth.roles import Role
from sstools.auth.tokens import Caller
from sstools.storage.models import Confirmation, WriteRequest
from sstools.storage.write_requests import RequestStatus


class DecisionBody(BaseModel):
    decision: Literal["approve", "deny"]
    # Why, with a denial: the requester reads it (in their chat, the model too); the audit keeps
    # it. One line of printable text.
    reason: (
        Annotated[
            str,
            StringConstraints(
                strip_whitespace=True, max_length=500, pattern=r"^[^\x00-\x1f\x7f]*$"
            ),
        ]
        | None
    ) = None


def may_decide(row: WriteRequest, user: Caller) -> bool:
    """Whether ``user`` may approve it now: waiting for them, i.e. their own word on a write
    their MCP host asked for, or else not theirs (nor their name's) and of their role."""
    if row.status == RequestStatus.awaiting_first:
        return row.requester_id == user.uid
    return (
        row.status == RequestStatus.awaiting_second
        and row.requester_id != user.uid
        and row.requested_by != user.username
        and user.role.allows(Role(row.approver_role))
    )


def card_approver_role(card: Confirmation) -> Role:
    """The least role that may give a card's second approval (admin where the row names none)."""
    return Role(card.approver_role) if card.approver_role else Role.admin
