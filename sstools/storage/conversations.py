"""Forgetting a conversation: its row, messages, events, confirmations and the feedback on its
answers, in one transaction.

Only an idle conversation can go: the row is deleted on condition that no run holds it, so a run
that starts meanwhile keeps everything (and the caller is told the conversation is busy).
"""

from __future__ import annotations

from enum import StrEnum

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.storage.models import (
    AnswerFeedback,
    Confirmation,
    Conversation,
    ConversationEvent,
    ConversationMessage,
)


class Forgotten(StrEnum):
    deleted = "deleted"
    busy = "busy"  # a run holds it


async def delete_conversation(session: AsyncSession, conversation_id: str) -> Forgotten:
    gone = await session.execute(
        delete(Conversation).where(
            Conversation.id == conversation_id, Conversation.active_run_id.is_(None)
        )
    )
    if gone.rowcount != 1:  # type: ignore[attr-defined]
        await session.rollback()
        return Forgotten.busy
    for table in (ConversationMessage, ConversationEvent, Confirmation, AnswerFeedback):
        await session.execute(delete(table).where(table.conversation_id == conversation_id))
    await session.commit()
    return Forgotten.deleted
