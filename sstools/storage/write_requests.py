"""Writes held for a second person, and the agent's second approvals spent by the write they
approved. Every change of state here is one conditional UPDATE: of two concurrent deciders (or
workers), exactly one wins.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.environments import EnvironmentRegistry
from sstools.metrics import count_approval
from sstools.storage.confirmations import approved_cards
from sstools.storage.db import changed_one
from sstools.storage.models import Confirmation, WriteRequest


@dataclass(frozen=True)
class SpentApproval:
    card_id: str
    second_by: str


class RequestStatus(StrEnum):
    # Asked from a face that holds every write for its person's own word first (MCP): only the
    # requester decides it; where the stage needs two people it then waits for a second.
    awaiting_first = "awaiting_first"
    awaiting_second = "awaiting_second"
    running = "running"  # approved; its write is being started
    approved = "approved"  # its write started (task_id) or ran (SQL)
    denied = "denied"
    expired = "expired"
    target_moved = "target_moved"  # the plan changed since the request: nothing written


# Still waiting for someone's decision.
WAITING = (RequestStatus.awaiting_first, RequestStatus.awaiting_second)


async def expire_due(
    session: AsyncSession, now: datetime, environments: EnvironmentRegistry
) -> None:
    """Requests still waiting past their expiry become expired, each counted once by the stage
    of its environment (``environments``) on ``/metrics``."""
    expired = await session.execute(
        update(WriteRequest)
        .where(WriteRequest.status.in_(WAITING), WriteRequest.expires_at <= now)
        .values(status=RequestStatus.expired, decided_at=now)
        .returning(WriteRequest.env_id)
    )
    env_ids = list(expired.scalars())  # the rows this update changed: another worker's are not
    await session.commit()
    for env_id in env_ids:
        count_approval(environments.stage_of(env_id), "expired")


async def current(
    session: AsyncSession, request_id: str, now: datetime, environments: EnvironmentRegistry
) -> WriteRequest | None:
    """The request as it stands at ``now`` (expired if past its expiry), read afresh; None when
    there is none (an id longer than any is none of them)."""
    await expire_due(session, now, environments)
    row = await session.get(WriteRequest, request_id[:64])
    if row is not None:
        await session.refresh(row)
    return row


async def waiting(
    session: AsyncSession, now: datetime, environments: EnvironmentRegistry, limit: int = 200
) -> list[WriteRequest]:
    """Requests still waiting, newest first (those past their expiry expired first)."""
    await expire_due(session, now, environments)
    found = await session.scalars(
        select(WriteRequest)
        .where(WriteRequest.status.in_(WAITING))
        .order_by(WriteRequest.created_at.desc())
        .limit(limit)
    )
    return list(found)


async def claim(
    session: AsyncSession,
    request_id: str,
    *,
    by: str,
    now: datetime,
    waiting_for: RequestStatus = RequestStatus.awaiting_second,
    to: RequestStatus = RequestStatus.running,
) -> bool:
    """An approval: whether it won (the request was ``waiting_for`` it, not expired). ``to``:
    running (its write starts now), or awaiting_second (the requester's own word, where the
    stage needs a second person; nobody has decided it yet)."""
    decided = {"decided_by": by, "decided_at": now} if to is RequestStatus.running else {}
    return await changed_one(
        session,
        update(WriteRequest)
        .where(
            WriteRequest.id == request_id,
            WriteRequest.status == waiting_for,
            WriteRequest.expires_at > now,
        )
        .values(status=to, **decided),
    )


async def settle(
    session: AsyncSession,
    request_id: str,
    status: RequestStatus,
    *,
    by: str,
    now: datetime,
    task_id: str | None = None,
    reason: str | None = None,
) -> bool:
    """The end of a request: from waiting (a denial) or from running (its write's outcome)."""
    if status in WAITING:  # a write that could not start: ask again
        values: dict[str, object] = {"status": status, "decided_by": None, "decided_at": None}
        before = [RequestStatus.running]
    else:
        values = {"status": status, "decided_by": by, "decided_at": now, "task_id": task_id}
        values |= {"reason": reason} if reason is not None else {}
        before = [*WAITING, RequestStatus.running]
    return await changed_one(
        session,
        update(WriteRequest)
        .where(WriteRequest.id == request_id, WriteRequest.status.in_(before))
        .values(**values),
    )


async def spend_agent_approval(
    session: AsyncSession,
    *,
    requester_id: str,
    env_id: str,
    matches: str,
    now: datetime,
) -> SpentApproval | None:
    """The agent card approved by a second person for this requester and environment whose card
    showed ``matches`` (the plan's digest, or the SQL), spent now; None when there is none.

    Looked up by what was approved, never by an id the caller names: a model cannot point a write
    at another card's approval."""
    cards = await session.scalars(
        approved_cards(
            requester_id,
            Confirmation.env_id == env_id,
            Confirmation.second_by.is_not(None),
            Confirmation.grant_used_at.is_(None),
        )
    )
    for card in cards:
        if matches not in _approved_values(card):
            continue
        spent = await changed_one(
            session,
            update(Confirmation)
            .where(Confirmation.id == card.id, Confirmation.grant_used_at.is_(None))
            .values(grant_used_at=now),
        )
        if spent and card.second_by:
            return SpentApproval(card_id=card.id, second_by=card.second_by)
    return None


async def card_started(session: AsyncSession, card_id: str, task_id: str) -> None:
    """The task the write a card approved started, so the card's page links to it."""
    await session.execute(
        update(Confirmation).where(Confirmation.id == card_id).values(task_id=task_id)
    )
    await session.commit()


# The agent's tool that creates a dataset (its card's arguments name the schema ``schema_name``).
_CREATE_DATASET = "superset_create_dataset"


def dataset_identity(
    *, database_id: object, schema: object, table: object, sql: object, name: object
) -> str:
    """What an approval of a new dataset binds to: the connection and what it wraps, by name."""
    return "dataset:" + json.dumps([database_id, schema, table, sql, name], ensure_ascii=False)


def _approved_values(card: Confirmation) -> set[str]:
    """What a card bound its approval to: the plan's digest it showed, its SQL, or the dataset
    it creates."""
    event: dict[str, Any] = card.event if isinstance(card.event, dict) else {}
    decision, args = event.get("decision"), event.get("args")
    found = [
        decision.get("digest") if isinstance(decision, dict) else None,
        args.get("sql") if isinstance(args, dict) else None,
    ]
    if event.get("tool") == _CREATE_DATASET and isinstance(args, dict):
        found.append(
            dataset_identity(
                database_id=args.get("database_id"),
                schema=args.get("schema_name"),
                table=args.get("table"),
                sql=args.get("sql"),
                name=args.get("name"),
            )
        )
    return {value for value in found if isinstance(value, str) and value}
