"""Which conversation has a run going: claimed by one conditional ``UPDATE``, released after.

``conversations.active_run_id`` says which run holds the conversation. A turn takes the
conversation's run lock (:mod:`sstools.agent.run.locks`) before claiming, so on PostgreSQL a claim
whose lock is free is provably dead and any worker may release it. A claim may be capped per
user: the count of that user's running conversations is a subquery of the same ``UPDATE`` —
exact on SQLite (one writer at a time); on PostgreSQL two claims racing for the last slot may
both win, so the cap is soft by one or two.

A claim can be taken from a run that is still going: on PostgreSQL, when the connection holding
its lock dies, another worker reaps it. What the run writes afterwards is made conditional on
:func:`still_claimed`, and refused with :class:`ClaimLost`.
"""

from __future__ import annotations

from enum import StrEnum

from sqlalchemy import Exists, exists, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from sstools.errors import SstoolsError
from sstools.storage.db import changed_one
from sstools.storage.models import Conversation


class ClaimLost(SstoolsError):
    """The run no longer holds its conversation: a worker that found its lock free reaped it."""


class Claim(StrEnum):
    claimed = "claimed"
    busy = "busy"  # this conversation has a run going
    over_cap = "over_cap"  # the user has as many runs going as allowed


async def claim_run(
    session: AsyncSession,
    conversation_id: str,
    run_id: str,
    *,
    capped_for: str | None = None,
    cap: int = 0,
) -> Claim:
    """Mark the conversation running as ``run_id``; with ``capped_for``, only under ``cap``."""
    conditions = [Conversation.id == conversation_id, Conversation.active_run_id.is_(None)]
    if capped_for is not None:
        others = aliased(Conversation)
        running = (
            select(func.count())
            .select_from(others)
            .where(others.owner == capped_for, others.active_run_id.is_not(None))
            .scalar_subquery()
        )
        conditions.append(running < cap)
    claim = update(Conversation).where(*conditions).values(active_run_id=run_id)
    if await changed_one(session, claim):
        return Claim.claimed
    busy = await session.scalar(
        select(Conversation.active_run_id).where(Conversation.id == conversation_id)
    )
    return Claim.busy if busy is not None or capped_for is None else Claim.over_cap


async def release_run(
    session: AsyncSession, conversation_id: str, *, run_id: str | None = None
) -> bool:
    """Clear the claim; with ``run_id`` only that run's (a reaper racing others wins once)."""
    conditions = [Conversation.id == conversation_id]
    if run_id is not None:
        conditions.append(Conversation.active_run_id == run_id)
    released = await session.execute(
        update(Conversation).where(*conditions).values(active_run_id=None)
    )
    await session.commit()
    return bool(released.rowcount)  # type: ignore[attr-defined]


async def active_run(session: AsyncSession, conversation_id: str) -> str | None:
    return await session.scalar(
        select(Conversation.active_run_id).where(Conversation.id == conversation_id)
    )


def still_claimed(conversation_id: str, run_id: str) -> Exists:
    """A condition for a write that must happen only while ``run_id`` holds the conversation.

    On PostgreSQL the row is locked ``FOR SHARE`` until the write's transaction ends: a reaper's
    release waits for it, so whatever the run wrote is there before the reaper reads and reports.
    """
    return exists(
        select(Conversation.id)
        .where(Conversation.id == conversation_id, Conversation.active_run_id == run_id)
        .with_for_update(read=True)
    )


async def holds_claim(session: AsyncSession, conversation_id: str, run_id: str) -> bool:
    return await active_run(session, conversation_id) == run_id


async def claimed_runs(session: AsyncSession) -> list[tuple[str, str]]:
    """(conversation, run) of every claim."""
    rows = await session.execute(
        select(Conversation.id, Conversation.active_run_id).where(
            Conversation.active_run_id.is_not(None)
        )
    )
    return [(conversation_id, str(run_id)) for conversation_id, run_id in rows]
