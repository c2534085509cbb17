"""What every route that takes a second person's decision shares: the decision's body, who may
decide a request — an agent card waiting for a second approval or a write the domain API held
(``/api/write-requests``, ``/api/approvals``, the page), which role it needs, and whether
its requester may still have the write run in their name."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, StringConstraints
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.roles import Role
from sstools.auth.tokens import Caller
from sstools.storage.confirmations import requested_by
from sstools.storage.models import Confirmation, User, WriteRequest
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


def one_line(reason: str | None) -> str | None:
    """A decision's reason as the requester and the audit read it: one line, None when blank."""
    return " ".join(reason.split()) or None if reason else None


class Bar(StrEnum):
    """What keeps a person from giving a request its second approval."""

    own = "own"  # they asked for it: they may withdraw it, never approve it
    namesake = "namesake"  # an earlier account of their name asked for it
    role = "role"  # their role is below the one it needs


def bar(user: Caller, request: Confirmation | WriteRequest) -> Bar | None:
    """What keeps ``user`` from deciding ``request`` as its second person, if anything: the
    requester is their account (by its id), not only their name."""
    if isinstance(request, Confirmation):
        own, name = requested_by(request, user.uid), request.username
    else:
        own, name = request.requester_id == user.uid, request.requested_by
    if own:
        return Bar.own
    if user.username == name:
        return Bar.namesake
    if not user.role.allows(approver_role(request)):
        return Bar.role
    return None


def may_decide(request: Confirmation | WriteRequest, user: Caller) -> bool:
    """Whether ``user`` may approve it now: their own word on a write their MCP host asked for,
    else a request waiting for a second person that nothing bars them from."""
    if isinstance(request, WriteRequest) and request.status == RequestStatus.awaiting_first:
        return request.requester_id == user.uid
    # Both tables name the wait for a second person alike.
    return request.status == RequestStatus.awaiting_second and bar(user, request) is None


def approver_role(request: Confirmation | WriteRequest) -> Role:
    """The least role that may give a request its second approval (admin where a card's row
    names none)."""
    return Role(request.approver_role) if request.approver_role else Role.admin


class RequesterLost(StrEnum):
    """Why a request can no longer run in its requester's name."""

    gone = "gone"  # their account was removed (a namesake added since is someone else)
    signed_out = "signed_out"  # their sessions were revoked, or their password changed, since


async def requester_now(
    session: AsyncSession, request: Confirmation | WriteRequest
) -> Caller | RequesterLost:
    """The requester as they are now, if the approved write may still run in their name: the
    same account (by its id), in the sign-in they asked from."""
    account = (
        await session.scalar(select(User).where(User.uid == request.requester_id))
        if request.requester_id is not None
        else None
    )
    if account is None:
        return RequesterLost.gone
    if account.token_version != request.requester_token_version:
        return RequesterLost.signed_out
    return Caller.of(account)
