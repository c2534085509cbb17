"""SSE events: typed models with one encoder, and the per-conversation event log they live in.

Each event gets a per-conversation sequence number, which is its SSE ``id``: a client that
reconnects with ``Last-Event-ID`` gets exactly what it missed, from any worker, after a restart.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sstools.agent.guardrails import GuardrailDecision
from sstools.storage.models import ConversationEvent


class _Event(BaseModel):
    run_id: str | None = None


class RunStarted(_Event):
    type: Literal["run_started"] = "run_started"


class TokenEvent(_Event):
    type: Literal["token"] = "token"
    text: str


class MessageEvent(_Event):
    type: Literal["message"] = "message"
    text: str


class ToolCallEvent(_Event):
    type: Literal["tool_call"] = "tool_call"
    tool: str
    title: str | None = None  # the tool in a person's words; None for a tool that does not exist
    call_id: str
    args: dict[str, Any]


class ToolResultEvent(_Event):
    type: Literal["tool_result"] = "tool_result"
    tool: str
    title: str | None = None
    call_id: str
    outcome: str
    message: str | None = None
    task_id: str | None = None  # set when the call started a background task


class ConfirmRequired(_Event):
    type: Literal["confirm_required"] = "confirm_required"
    confirmation_id: str
    tool: str
    title: str
    call_id: str
    args: dict[str, Any]
    decision: GuardrailDecision
    expires_at: datetime


class PermissionDenied(_Event):
    type: Literal["permission_denied"] = "permission_denied"
    tool: str
    call_id: str
    required_roles: list[str]
    message: str


class Cancelled(_Event):
    type: Literal["cancelled"] = "cancelled"
    tool: str
    confirmation_id: str | None = None
    reason: str
    message: str


ErrorCode = Literal[
    "session_expired",
    "timeout",
    "tool_error",  # a tool call failed unexpectedly (a fault under the executor, a bug)
    "llm_error",  # the model: unreachable, refused, unusable reply, or too many steps
    "internal_error",  # ours: storage or a bug outside the model and the tools
    "context_invalid",
    "run_interrupted",
]


class ErrorEvent(_Event):
    type: Literal["error"] = "error"
    code: ErrorCode
    message: str


class Done(_Event):
    type: Literal["done"] = "done"


AgentEvent = Annotated[
    RunStarted
    | TokenEvent
    | MessageEvent
    | ToolCallEvent
    | ToolResultEvent
    | ConfirmRequired
    | PermissionDenied
    | Cancelled
    | ErrorEvent
    | Done,
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[AgentEvent] = TypeAdapter(AgentEvent)


def encode(event: BaseModel) -> dict[str, Any]:
    """The one encoder: what is stored and what goes out as the SSE ``data`` JSON."""
    return event.model_dump(mode="json")


class EventLog:
    """Append-only per conversation; wakes in-process subscribers, others poll the table."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        # One-shot per append, and the last seq appended here: a waiter that is behind returns
        # at once, so an append between its read and its wait is never missed.
        self._changed: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self._latest: dict[str, int] = {}

    async def append(self, conversation_id: str, event: BaseModel) -> int:
        data = encode(event)
        async with self._locks[conversation_id], self._sessions() as session:
            last = await session.scalar(
                select(func.max(ConversationEvent.seq)).where(
                    ConversationEvent.conversation_id == conversation_id
                )
            )
            seq = (last or 0) + 1
            session.add(
                ConversationEvent(
                    conversation_id=conversation_id, seq=seq, type=data["type"], data=data
                )
            )
            await session.commit()
        self._latest[conversation_id] = seq
        self._changed.pop(conversation_id, asyncio.Event()).set()
        return seq

    async def since(self, conversation_id: str, after: int) -> list[tuple[int, dict[str, Any]]]:
        """A short session per read: a waiting stream holds no database connection."""
        async with self._sessions() as session:
            rows = await session.execute(
                select(ConversationEvent.seq, ConversationEvent.data)
                .where(
                    ConversationEvent.conversation_id == conversation_id,
                    ConversationEvent.seq > after,
                )
                .order_by(ConversationEvent.seq)
            )
            return [(seq, data) for seq, data in rows]

    async def wait(self, conversation_id: str, after: int, timeout_s: float) -> None:
        """Until an event past ``after`` is appended here, or the timeout (for other workers)."""
        if self._latest.get(conversation_id, 0) > after:
            return
        try:
            await asyncio.wait_for(self._changed[conversation_id].wait(), timeout_s)
        except TimeoutError:
            return
