"""The model tokens each person spent in the chat, per UTC day: added after every model call,
read before a message is taken (the daily budget) and by the audit page (each person's use).

One row per (account, day), added to in place: an ``UPDATE … SET tokens = tokens + n`` is
atomic on SQLite and PostgreSQL, so workers adding at once lose nothing; the row's first
``INSERT`` racing another retries as that ``UPDATE``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.storage.models import LlmUsage
from sstools.storage.upsert import update_or_insert


@dataclass(frozen=True)
class DailyUse:
    """One person's use of one day, as the audit page lists it."""

    user_uid: str
    username: str
    day: date
    tokens: int
    estimated_tokens: int
    calls: int


async def add(
    session: AsyncSession,
    *,
    user_uid: str,
    username: str,
    day: date,
    tokens: int,
    estimated: bool,
    at: datetime,
) -> None:
    """Add one model call's ``tokens`` (``estimated`` by the tokenizer: the provider reported
    none) to the person's count for ``day``, and commit."""
    guessed = tokens if estimated else 0
    change = (
        update(LlmUsage)
        .where(LlmUsage.user_uid == user_uid, LlmUsage.day == day)
        .values(
            tokens=LlmUsage.tokens + tokens,
            estimated_tokens=LlmUsage.estimated_tokens + guessed,
            calls=LlmUsage.calls + 1,
            username=username,
            updated_at=at,
        )
    )
    first = LlmUsage(
        user_uid=user_uid,
        day=day,
        username=username,
        tokens=tokens,
        estimated_tokens=guessed,
        calls=1,
        updated_at=at,
    )
    await update_or_insert(session, change, first)


async def used_on(session: AsyncSession, user_uid: str, day: date) -> int:
    """The tokens the person spent on ``day`` (0 when nothing was counted)."""
    used = await session.scalar(
        select(LlmUsage.tokens).where(LlmUsage.user_uid == user_uid, LlmUsage.day == day)
    )
    return int(used or 0)


async def use_per_person(session: AsyncSession, first: date, last: date) -> list[DailyUse]:
    """Each person's use on each day from ``first`` to ``last`` (both included), the newest day
    first and the biggest spender first within a day: the rows of the audit page."""
    rows = await session.scalars(
        select(LlmUsage)
        .where(LlmUsage.day >= first, LlmUsage.day <= last)
        .order_by(LlmUsage.day.desc(), LlmUsage.tokens.desc(), LlmUsage.username)
    )
    return [
        DailyUse(
            user_uid=row.user_uid,
            username=row.username,
            day=row.day,
            tokens=row.tokens,
            estimated_tokens=row.estimated_tokens,
            calls=row.calls,
        )
        for row in rows
    ]
