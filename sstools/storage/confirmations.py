"""Confirmations: saved when a run pauses, decided once, expired once.

Every change of status is one compare-and-set ``UPDATE … WHERE status = <the one it leaves>``:
of any number of racing decisions (or a decision racing the expiry) exactly one wins, on SQLite
and PostgreSQL alike. A write whose stage needs two people goes
``pending → awaiting_second`` (the requester's approval) ``→ approved | denied | target_moved``
(the second person's decision; ``target_moved``: the plan changed since the request). A card
the person edited goes ``pending → edited``; the edited call gets a card of its own.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import ColumnElement, Select, Update, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.storage.db import changed_one
from sstools.storage.models import Confirmation


class ConfirmationStatus(StrEnum):
    pending = "pending"
    awaiting_second = "awaiting_second"
    approved = "approved"
    denied = "denied"
    expired = "expired"
    target_moved = "target_moved"
    edited = "edited"  # the person changed the card's arguments: a new card replaces it


# Still waiting for someone: the conversation's run is paused on it.
WAITING = (ConfirmationStatus.pending, ConfirmationStatus.awaiting_second)


def requested_by(confirmation: Confirmation, uid: str) -> bool:
    """Whether the account ``uid`` made the request: its account, not only its name (a removed
    and re-added username is another person, and owns none of the old one's requests)."""
    return confirmation.requester_id is not None and confirmation.requester_id == uid


def card_stage(confirmation: Confirmation) -> str | None:
    """The target's stage as the card showed it (its guardrail decision); None: no environment
    (a git write), or a card of an older shape."""
    decision = confirmation.event.get("decision") if isinstance(confirmation.event, dict) else None
    stage = decision.get("stage") if isinstance(decision, dict) else None
    return stage if isinstance(stage, str) else None


def pending_row(
    *,
    confirmation_id: str,
    conversation_id: str,
    interrupt_id: str,
    call_id: str,
    tool: str,
    args_hash: str,
    env_id: str | None,
    username: str,
    requester_id: str | None,
    event: dict[str, Any],
    expires_at: datetime,
) -> Confirmation:
    """A new pending confirmation: to commit with the card that shows it, or not at all."""
    return Confirmation(
        id=confirmation_id,
        conversation_id=conversation_id,
        interrupt_id=interrupt_id,
        call_id=call_id,
        tool=tool,
        args_hash=args_hash,
        env_id=env_id,
        username=username,
        requester_id=requester_id,
        event=event,
        status=ConfirmationStatus.pending,
        expires_at=expires_at,
    )


async def find_pending(session: AsyncSession, conversation_id: str) -> Confirmation | None:
    return await session.scalar(
        select(Confirmation).where(
            Confirmation.conversation_id == conversation_id,
            Confirmation.status.in_(WAITING),
        )
    )


def _while(confirmation_id: str, status: ConfirmationStatus, now: datetime) -> Update:
    """An UPDATE of the card that applies only while it is in ``status`` and not past expiry."""
    return update(Confirmation).where(
        Confirmation.id == confirmation_id,
        Confirmation.status == status,
        Confirmation.expires_at > now,
    )


def approved_cards(requester_id: str, *conditions: ColumnElement[bool]) -> Select[Confirmation]:
    """The SELECT of the cards ``requester_id`` asked that were approved and meet ``conditions``."""
    return select(Confirmation).where(
        Confirmation.requester_id == requester_id,
        Confirmation.status == ConfirmationStatus.approved,
        *conditions,
    )


async def decide_once(
    session: AsyncSession,
    confirmation_id: str,
    decision: ConfirmationStatus,
    now: datetime,
    *,
    similar: bool = False,
    token_version: int | None = None,
) -> bool:
    """Whether this decision won: the confirmation was pending and not yet past its expiry.
    ``similar``: the approval covers similar calls for the rest of the conversation, while the
    person's sign-in lasts (``token_version``, kept as the requester's)."""
    if decision not in (
        ConfirmationStatus.approved,
        ConfirmationStatus.denied,
        ConfirmationStatus.edited,
    ):
        raise ValueError(f"a person decides approved, denied or edited, not {decision}")
    return await changed_one(
        session,
        _while(confirmation_id, ConfirmationStatus.pending, now).values(
            status=decision,
            decided_at=now,
            similar=similar or None,
            requester_token_version=token_version if similar else None,
        ),
    )


async def approved_similar(
    session: AsyncSession,
    conversation_id: str,
    requester_id: str,
    *,
    token_version: int,
    since: datetime,
) -> frozenset[tuple[str, str, str]]:
    """What the account ``requester_id`` approved for similar calls in the conversation, in the
    sign-in of ``token_version`` and after ``since``: (tool, environment, kind), the kind as
    the card showed it."""
    rows = await session.scalars(
        approved_cards(
            requester_id,
            Confirmation.conversation_id == conversation_id,
            Confirmation.similar.is_(True),
            Confirmation.requester_token_version == token_version,
            Confirmation.decided_at > since,
        )
    )
    covered = set()
    for row in rows.all():
        kind = (row.event.get("decision") or {}).get("kind")
        if row.env_id and isinstance(kind, str):
            covered.add((row.tool, row.env_id, kind))
    return frozenset(covered)


async def expire_due(
    session: AsyncSession, conversation_id: str, now: datetime
) -> list[Confirmation]:
    """Mark the conversation's pending confirmations past expiry as expired; those this call won."""
    due = (
        await session.scalars(
            select(Confirmation).where(
                Confirmation.conversation_id == conversation_id,
                Confirmation.status.in_(WAITING),
                Confirmation.expires_at <= now,
            )
        )
    ).all()
    won = []
    for confirmation in due:
        result = await session.execute(
            update(Confirmation)
            .where(
                Confirmation.id == confirmation.id,
                Confirmation.status == confirmation.status,
            )
            .values(status=ConfirmationStatus.expired, decided_at=now)
        )
        if result.rowcount == 1:  # type: ignore[attr-defined]
            won.append(confirmation)
    await session.commit()
    return won


async def ask_second(
    session: AsyncSession,
    confirmation_id: str,
    *,
    by: str,
    approver_role: str,
    now: datetime,
    expires_at: datetime,
    token_version: int | None = None,
) -> bool:
    """The requester's approval of a write that needs two people: whether it won (the card was
    pending and not yet expired); it now waits for a second person until ``expires_at``."""
    return await changed_one(
        session,
        _while(confirmation_id, ConfirmationStatus.pending, now).values(
            status=ConfirmationStatus.awaiting_second,
            first_approved_by=by,
            first_approved_at=now,
            approver_role=approver_role,
            expires_at=expires_at,
            requester_token_version=token_version,
        ),
    )


async def decide_second(
    session: AsyncSession,
    confirmation_id: str,
    decision: ConfirmationStatus,
    *,
    by: str,
    now: datetime,
    reason: str | None = None,
) -> bool:
    """Whether the second person's decision won: the request was waiting and not yet expired."""
    if decision not in (
        ConfirmationStatus.approved,
        ConfirmationStatus.denied,
        ConfirmationStatus.target_moved,
    ):
        raise ValueError(
            f"a second person decides approved, denied or target_moved, not {decision}"
        )
    return await changed_one(
        session,
        _while(confirmation_id, ConfirmationStatus.awaiting_second, now).values(
            status=decision, decided_at=now, second_by=by, second_at=now, reason=reason
        ),
    )


async def awaiting_second(session: AsyncSession, limit: int = 200) -> list[Confirmation]:
    """Requests waiting for a second person, oldest first (expired ones too, until read)."""
    rows = await session.scalars(
        select(Confirmation)
        .where(Confirmation.status == ConfirmationStatus.awaiting_second)
        .order_by(Confirmation.first_approved_at)
        .limit(limit)
    )
    return list(rows.all())
