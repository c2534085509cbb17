"""``/api/agent``: conversations, messages with a UIContext, SSE, confirmations, tools."""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.types import Receive, Scope, Send

from sstools.agent import explain, texts
from sstools.agent.context import (
    ContextRejected,
    ObjectType,
    UIContext,
    parse_uicontext,
    visible_name,
)
from sstools.agent.executor import ToolExecutor
from sstools.agent.routes.deps import ConversationDep, ExecutorDep, RuntimeDep, TokenDep
from sstools.agent.routes.feedback import FeedbackView
from sstools.agent.run.runtime import Busy, OverBudget, TooManyRuns
from sstools.agent.run.stream_slots import StreamSlot, TooManyStreams
from sstools.agent.selection import HiddenTool, select_tools
from sstools.http.audit_trail import AuditTrail
from sstools.http.auth import CurrentUser
from sstools.http.deps import ServicesDep, SessionDep
from sstools.http.services import Services
from sstools.storage import feedback
from sstools.storage.feedback import Given
from sstools.storage.models import Conversation, ConversationMessage

# Its own generator: the global one's state belongs to whoever else runs in the process.
_jitter = random.Random()  # noqa: S311 - spreading polls, not a secret

router = APIRouter(prefix="/api/agent", tags=["agent"])

# When to try again after a 429: a stream's slot frees when another stream closes, a run's
# when a run ends; neither is predictable, so a short fixed wait.
STREAM_RETRY_AFTER_S = 10
RUN_RETRY_AFTER_S = 5
# How often an idle stream re-reads the log anyway (seconds): only a safety net, since appends
# wake streams in their own process and, on PostgreSQL, other workers' by NOTIFY. Each re-read
# costs CPU: at 3 s, 1,000 waiting streams took 56 % of a core, at 30 s 1.4 % (make bench).
POLL_S = 30.0


class Created(BaseModel):
    id: str


class MessageRequest(BaseModel):
    text: str = Field(min_length=1, max_length=4000)
    uicontext: dict[str, Any] | None = None


class RunAccepted(BaseModel):
    run_id: str


class HistoryMessage(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # a stored message reads as it is

    id: int  # what a rating names (PUT …/messages/{id}/feedback)
    role: str
    text: str
    uicontext: dict[str, Any] | None
    created_at: datetime
    feedback: FeedbackView | None = None  # the owner's 👍 / 👎 on an answer

    @classmethod
    def of(cls, row: ConversationMessage, given: Given | None) -> HistoryMessage:
        shown = cls.model_validate(row)
        shown.feedback = FeedbackView.of(given) if given else None
        return shown


class History(BaseModel):
    id: str
    messages: list[HistoryMessage]
    pending_confirmation: dict[str, Any] | None
    running: bool


class ToolsView(BaseModel):
    offered: list[str]
    hidden: dict[str, HiddenTool]


@router.post(
    "/conversations",
    status_code=201,
    responses={409: {"description": "the caller has as many conversations as allowed"}},
)
async def create_conversation(
    session: SessionDep, services: ServicesDep, user: CurrentUser
) -> Created:
    limit = services.settings.agent_conversations_per_user
    stored = await session.scalar(
        select(func.count()).select_from(Conversation).where(Conversation.owner_id == user.uid)
    )
    if (stored or 0) >= limit:
        raise HTTPException(409, explain.too_many_conversations(limit))
    conversation = Conversation(
        id=f"c_{secrets.token_urlsafe(24)}", owner=user.username, owner_id=user.uid
    )
    session.add(conversation)
    await session.commit()
    return Created(id=conversation.id)


@router.delete(
    "/conversations/{conversation_id}",
    status_code=204,
    responses={409: {"description": "the agent is answering in it right now"}},
)
async def delete_conversation(
    conversation: ConversationDep, session: SessionDep, runtime: RuntimeDep, user: CurrentUser
) -> None:
    """Forget it: messages, events, a waiting confirmation (never decided) and checkpoints."""
    try:
        await runtime.forget(conversation.id)
    except Busy as exc:
        raise HTTPException(409, explain.busy()) from exc
    await AuditTrail(session, user).record(
        "conversation_deleted", "ok", conversation_id=conversation.id
    )


@router.get("/conversations/{conversation_id}")
async def get_conversation(
    conversation: ConversationDep, session: SessionDep, runtime: RuntimeDep, user: CurrentUser
) -> History:
    rows = await session.scalars(
        select(ConversationMessage)
        .where(ConversationMessage.conversation_id == conversation.id)
        .order_by(ConversationMessage.id)
    )
    pending = await runtime.pending_confirmation(conversation.id)
    given = await feedback.given_in(session, conversation.id, user.uid)
    return History(
        id=conversation.id,
        messages=[HistoryMessage.of(m, given.get(m.id)) for m in rows],
        pending_confirmation=pending.event if pending else None,
        running=conversation.active_run_id is not None,
    )


@router.post(
    "/conversations/{conversation_id}/messages",
    status_code=202,
    responses={
        409: {"description": "a run is active or a confirmation waits in this conversation"},
        429: {
            "description": "the caller has as many runs going as allowed, or has spent "
            "today's tokens (Retry-After: seconds to the next UTC midnight)"
        },
    },
)
async def post_message(
    body: MessageRequest,
    conversation: ConversationDep,
    services: ServicesDep,
    session: SessionDep,
    runtime: RuntimeDep,
    executor: ExecutorDep,
    user: CurrentUser,
    token: TokenDep,
) -> RunAccepted:
    try:
        context = await _checked_context(body.uicontext, services, executor, token)
    except ContextRejected as exc:
        excerpt = json.dumps(body.uicontext, ensure_ascii=False, default=str)
        await AuditTrail(session, user).record(
            "context_rejected",
            "refused",
            field=exc.field,
            reason=exc.reason,
            size=len(excerpt.encode()),
            excerpt=excerpt[:200],
        )
        raise HTTPException(
            422,
            [
                {
                    "loc": ["body", *exc.field.split(".")],
                    "msg": exc.reason,
                    "type": "context_invalid",
                }
            ],
        ) from exc
    try:
        run_id = await runtime.post_message(conversation.id, user, token, body.text, context)
    except Busy as exc:
        raise HTTPException(409, explain.busy()) from exc
    except TooManyRuns as exc:
        raise HTTPException(
            429,
            explain.too_many_runs(exc.limit),
            headers={"Retry-After": str(RUN_RETRY_AFTER_S)},
        ) from exc
    except OverBudget as exc:
        raise HTTPException(429, str(exc), headers={"Retry-After": str(exc.retry_after_s)}) from exc
    return RunAccepted(run_id=run_id)


async def _checked_context(
    raw: Any, services: Services, executor: ToolExecutor, token: str
) -> UIContext | None:
    """The page's context, valid, with Superset's own name for its object and its filters' columns
    checked; :class:`ContextRejected` naming the field otherwise."""
    if raw is None:
        return None
    context = parse_uicontext(raw, set(services.environments))
    return await with_checked_filters(
        await with_the_real_name(context, executor, token), executor, token
    )


async def with_checked_filters(
    context: UIContext | None, executor: ToolExecutor, token: str
) -> UIContext | None:
    """The context with its filters, each on a column of the dashboard's datasets as Superset has
    them (asked with the person's token); a filter on any other column is refused, naming it.
    Without an answer the filters are dropped: unchecked, they never reach a prompt."""
    if context is None or not context.filters:
        return context
    columns = None
    if context.object_id is not None and context.env_id is not None:
        path = f"/api/objects/dashboard/{int(context.object_id)}/columns"
        found = await executor.read_json(path, {"env_id": context.env_id}, token)
        columns = found.get("columns") if isinstance(found, dict) else None
    if not isinstance(columns, list):
        return context.model_copy(update={"filters": ()})
    for index, one in enumerate(context.filters):
        if one.column not in columns:
            reason = texts.CONTEXT_UNKNOWN_COLUMN.format(column=one.column)
            raise ContextRejected(f"uicontext.filters.{index}.column", reason)
    return context


async def with_the_real_name(
    context: UIContext | None, executor: ToolExecutor, token: str
) -> UIContext | None:
    """The context with the object's name as Superset has it, asked of ``/api/objects`` with
    the person's token as a tool would: the URL's ``objectName`` is a hint a crafted link could
    fill with another dashboard's title, so it never reaches a prompt or a card. No answer (or
    no such object, or none the person may see): no name, and the card shows the id."""
    if context is None or context.object_id is None or context.env_id is None:
        return context
    if context.object_type not in (ObjectType.dashboard, ObjectType.dataset):
        return context
    path = f"/api/objects/{context.object_type.value}/{int(context.object_id)}"
    found = await executor.read_json(path, {"env_id": context.env_id}, token)
    name = found.get("name") if isinstance(found, dict) else None
    return context.model_copy(
        update={"object_name": visible_name(name if isinstance(name, str) else None)}
    )


def _sse_data(event: dict[str, Any]) -> str:
    """ASCII JSON: U+2028, U+0085 and kin would otherwise split an SSE line in some clients."""
    return json.dumps(event)


class _SlotHoldingStream(EventSourceResponse):
    """Gives its stream slot back however the response ends, even if the body never started."""

    def __init__(self, content: AsyncIterator[ServerSentEvent], slot: StreamSlot) -> None:
        super().__init__(content, ping=15)
        self._slot = slot

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._slot.release()


@router.get(
    "/conversations/{conversation_id}/events",
    responses={429: {"description": "too many event streams open for this user or conversation"}},
)
async def stream_events(
    conversation: ConversationDep,
    runtime: RuntimeDep,
    user: CurrentUser,
    request: Request,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
    resume_after: Annotated[int | None, Query(alias="last_event_id", ge=0)] = None,
) -> EventSourceResponse:
    """The header (sent by EventSource on reconnect) wins over the query (its first connect)."""
    try:
        after = max(int(last_event_id or resume_after or 0), 0)
    except ValueError:
        after = 0
    try:
        slot = runtime.streams.acquire(user.username, conversation.id)
    except TooManyStreams as exc:
        raise HTTPException(
            429, str(exc), headers={"Retry-After": str(STREAM_RETRY_AFTER_S)}
        ) from exc

    async def events() -> AsyncIterator[ServerSentEvent]:
        # Every read below opens and closes its own session: nothing is held while waiting.
        try:
            cursor = after
            pending = await runtime.pending_confirmation(conversation.id)
            replay = await runtime.events.since(conversation.id, cursor)
            replayed_ids = {data.get("confirmation_id") for _, data in replay}
            if pending is not None and pending.id not in replayed_ids:
                # Re-sent with the client's own cursor as id, so its position never moves back.
                yield ServerSentEvent(data=_sse_data(pending.event), id=str(cursor))
            while True:
                for seq, data in replay:
                    yield ServerSentEvent(data=_sse_data(data), id=str(seq))
                    cursor = seq
                if await request.is_disconnected():
                    return
                # An append wakes us (this worker's at once, others' by NOTIFY); else the poll.
                poll_s = _jitter.uniform(0.8, 1.2) * POLL_S  # spreads the reads
                await runtime.events.wait(conversation.id, after=cursor, timeout_s=poll_s)
                replay = await runtime.events.since(conversation.id, cursor)
        finally:
            slot.release()  # the client left, the server is stopping, or a read failed

    return _SlotHoldingStream(events(), slot)


@router.get("/tools")
async def offered_tools(
    services: ServicesDep,
    user: CurrentUser,
    object_type: Annotated[ObjectType | None, Query(alias="objectType")] = None,
    env_id: Annotated[str | None, Query(alias="envId", max_length=64)] = None,
) -> ToolsView:
    if env_id is not None and env_id not in services.environments:
        raise HTTPException(404, explain.unknown_environment(env_id))
    context = UIContext.model_validate(
        {"contextVersion": 1, "objectType": object_type, "envId": env_id, "route": "/"}
    )
    selection = select_tools(user.role, context)
    return ToolsView(offered=selection.offered, hidden=selection.hidden)
