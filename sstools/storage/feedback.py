"""Feedback on the agent's answers: a person's 👍 or 👎 on one answer, with an optional comment.

One row per (answer, person), replaced by the next click (``UPDATE`` first, then ``INSERT``; an
``INSERT`` that lost a race to a second click becomes the ``UPDATE``). The 👎 turns are read
back with the person's message that asked and the conversation's earlier messages, for
``sstools eval --from-feedback``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.storage.models import AnswerFeedback, ConversationMessage
from sstools.storage.upsert import update_or_insert

MAX_COMMENT_CHARS = 1000
# How many of the person's earlier messages a 👎 turn carries (a follow-up needs its lead-in).
EARLIER_MESSAGES = 10


class Rating(StrEnum):
    up = "up"
    down = "down"


@dataclass(frozen=True)
class Given:
    """What one person said of one answer."""

    rating: Rating
    comment: str | None
    at: datetime


@dataclass(frozen=True)
class Asked:
    """One of the person's messages, with the page it was sent from."""

    text: str
    uicontext: dict[str, Any] | None


@dataclass(frozen=True)
class RatedTurn:
    """A rated answer with the message that asked for it (None: the answer has no message
    before it) and the person's messages before that, oldest first."""

    message_id: int
    conversation_id: str
    username: str
    role: str
    answer: str
    asked: Asked | None
    earlier: list[Asked]
    given: Given


async def rate(
    session: AsyncSession,
    *,
    message_id: int,
    conversation_id: str,
    user_uid: str,
    username: str,
    role: str,
    rating: Rating,
    comment: str | None,
    at: datetime,
) -> None:
    """Store the person's rating of answer ``message_id`` (replacing theirs), and commit."""
    values = {"username": username, "role": role, "rating": rating.value, "comment": comment}
    change = (
        update(AnswerFeedback)
        .where(AnswerFeedback.message_id == message_id, AnswerFeedback.user_uid == user_uid)
        .values(**values, at=at)
    )
    first = AnswerFeedback(
        message_id=message_id,
        user_uid=user_uid,
        conversation_id=conversation_id,
        at=at,
        **values,
    )
    await update_or_insert(session, change, first)  # a second click's rating replaces the first


async def given_in(session: AsyncSession, conversation_id: str, user_uid: str) -> dict[int, Given]:
    """The person's ratings in a conversation, by answer (message id)."""
    rows = await session.scalars(
        select(AnswerFeedback).where(
            AnswerFeedback.conversation_id == conversation_id,
            AnswerFeedback.user_uid == user_uid,
        )
    )
    return {row.message_id: _given(row) for row in rows}


def _given(row: AnswerFeedback) -> Given:
    return Given(rating=Rating(row.rating), comment=row.comment, at=row.at)


async def rated_turns(session: AsyncSession, rating: Rating) -> list[RatedTurn]:
    """Every answer rated ``rating``, oldest rating first, with its turn."""
    query = (
        select(AnswerFeedback, ConversationMessage)
        .join(ConversationMessage, ConversationMessage.id == AnswerFeedback.message_id)
        .where(AnswerFeedback.rating == rating.value)
        .order_by(AnswerFeedback.at, AnswerFeedback.message_id)
    )
    turns = []
    for feedback, answer in await session.execute(query):
        asked = await _asked_before(session, answer)
        turns.append(
            RatedTurn(
                message_id=answer.id,
                conversation_id=answer.conversation_id,
                username=feedback.username,
                role=feedback.role,
                answer=answer.text,
                asked=asked[-1] if asked else None,
                earlier=asked[:-1],
                given=_given(feedback),
            )
        )
    return turns


async def _asked_before(session: AsyncSession, answer: ConversationMessage) -> list[Asked]:
    """The person's messages before ``answer``, oldest first: the last asked for it."""
    rows = await session.scalars(
        select(ConversationMessage)
        .where(
            ConversationMessage.conversation_id == answer.conversation_id,
            ConversationMessage.role == "user",
            ConversationMessage.id < answer.id,
        )
        .order_by(ConversationMessage.id.desc())
        .limit(EARLIER_MESSAGES + 1)
    )
    return [Asked(text=row.text, uicontext=row.uicontext) for row in reversed(list(rows))]
