"""``PUT /api/agent/conversations/{id}/messages/{message_id}/feedback``: the owner's 👍 or 👎 on
one of the agent's answers, with an optional comment; a second one replaces the first.
``sstools eval --from-feedback`` turns the 👎 turns into eval scenarios."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path
from pydantic import BaseModel, StringConstraints

from sstools import clock
from sstools.agent import texts
from sstools.agent.routes.deps import ConversationDep
from sstools.http.audit_trail import AuditTrail
from sstools.http.auth import CurrentUser
from sstools.http.deps import SessionDep
from sstools.http.errors import field_error
from sstools.ids import MAX_ID
from sstools.storage import feedback
from sstools.storage.feedback import MAX_COMMENT_CHARS, Given, Rating
from sstools.storage.models import ConversationMessage

router = APIRouter(prefix="/api/agent", tags=["agent"])


class FeedbackRequest(BaseModel):
    rating: Rating
    # What was wrong (or right), in the person's words: an eval scenario's note.
    comment: (
        Annotated[str, StringConstraints(strip_whitespace=True, max_length=MAX_COMMENT_CHARS)]
        | None
    ) = None


class FeedbackView(BaseModel):
    rating: Rating
    comment: str | None
    at: datetime

    @classmethod
    def of(cls, given: Given) -> FeedbackView:
        return cls(rating=given.rating, comment=given.comment, at=given.at)


@router.put(
    "/conversations/{conversation_id}/messages/{message_id}/feedback",
    responses={
        404: {"description": "no such conversation of the caller's, or no such message in it"},
        422: {"description": "the message is the person's own, not the agent's answer"},
    },
)
async def rate_answer(
    # A 32-bit key, like every table's: a larger number names nothing (PostgreSQL would refuse it).
    message_id: Annotated[int, Path(ge=1, le=MAX_ID)],
    body: FeedbackRequest,
    conversation: ConversationDep,
    session: SessionDep,
    user: CurrentUser,
) -> FeedbackView:
    """Rate one answer of the caller's conversation (only its owner may)."""
    message = await session.get(ConversationMessage, message_id)
    if message is None or message.conversation_id != conversation.id:
        raise HTTPException(404, texts.ANSWER_NOT_FOUND)
    if message.role != "assistant":
        raise field_error("message_id", texts.ONLY_ANSWERS_RATED, where="path")
    given = Given(rating=body.rating, comment=body.comment or None, at=clock.now())
    await feedback.rate(
        session,
        message_id=message.id,
        conversation_id=conversation.id,
        user_uid=user.uid,
        username=user.username,
        role=user.role.value,
        rating=given.rating,
        comment=given.comment,
        at=given.at,
    )
    await AuditTrail(session, user).record(
        "answer_rated",
        given.rating.value,
        conversation_id=conversation.id,
        message_id=message.id,
        commented=given.comment is not None,
    )
    return FeedbackView.of(given)
