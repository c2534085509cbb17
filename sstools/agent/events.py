"""SSE events: typed models with one encoder, and the per-conversation event log they live in.

Each event gets a per-conversation sequence number, which is its SSE ``id``: a client that
reconnects with ``Last-Event-ID`` gets exactly what it missed, from any worker, after a restart.
"""

from __future__ import annotations

import asyncio
import random
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal, NewType

from pydantic import BaseModel, Field
from sqlalchemy import Executable, String, cast, func, insert, literal, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sstools.agent.figures import Figure
from sstools.agent.guardrails import GuardrailDecision
from sstools.storage.models import Base, ConversationEvent, utcnow
from sstools.storage.runs import ClaimLost, still_claimed


class _Event(BaseModel):
    run_id: str | None = None


DecisionStatus = Literal["approved", "denied", "expired", "target_moved", "edited"]


class Decided(BaseModel):
    """The decision on a card that a resumed run starts from: what, who and when."""

    confirmation_id: str
    call_id: str
    status: DecisionStatus
    by: str | None  # the person who decided; None when the card expired
    at: datetime
    reason: str | None = None  # what the person said with a denial (their words: data)
    # Set when a second person decided: the requester, whose approval asked for them.
    first_by: str | None = None


class ApprovalWaiting(_Event):
    """The requester approved a write that needs two people: the card now waits for a second
    person with ``approver_role``, at ``link``, until ``expires_at``."""

    type: Literal["approval_waiting"] = "approval_waiting"
    confirmation_id: str
    call_id: str
    by: str
    at: datetime
    approver_role: str
    expires_at: datetime
    link: str


class RunStarted(_Event):
    type: Literal["run_started"] = "run_started"
    decided: Decided | None = None  # set when a decision on a card (or its expiry) started it


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
    # Runs without a card: the person approved similar calls in dev for this conversation.
    approved_ahead: bool = False


class ToolResultEvent(_Event):
    type: Literal["tool_result"] = "tool_result"
    tool: str
    title: str | None = None
    call_id: str
    outcome: str
    message: str | None = None
    task_id: str | None = None  # set when the call started a background task
    figures: list[Figure] = []  # charts drawn from the tool's own answer (sstools.agent.figures)


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
    | ApprovalWaiting
    | PermissionDenied
    | Cancelled
    | ErrorEvent
    | Done,
    Field(discriminator="type"),
]


# An event as `encode` made it: plain JSON values, stored as they are and sent as they are (a
# graph step's update carries it, since the checkpoint holds only plain data).
EncodedEvent = NewType("EncodedEvent", dict[str, Any])


def encode(event: BaseModel) -> EncodedEvent:
    """The one encoder: what is stored and what goes out as the SSE ``data`` JSON."""
    return EncodedEvent(event.model_dump(mode="json"))


NOTIFY_CHANNEL = "sstools_events"
# A collision needs two workers appending to one conversation at the same moment (a run's
# last `done` racing the next run's start): rare, so retrying costs nothing in the usual case.
_APPEND_ATTEMPTS = 50
# A run's last event lost to a busy pool leaves its chat waiting forever: wait for longer.
_POOL_WAITS = 3
_jitter = random.Random()  # noqa: S311 - spreading retries, not a secret
# The last events appended here, per conversation, for so many conversations: what a woken stream
# sends without reading the table back.
_RECENT_EVENTS = 16
_RECENT_CONVERSATIONS = 4096


class EventLog:
    """Append-only per conversation; wakes this worker's subscribers, and others via NOTIFY.

    Each append is one short transaction: the next seq is computed inside the ``INSERT``, and on
    PostgreSQL the ``NOTIFY`` rides in the same statement (delivered at commit). Two processes
    appending to one conversation at once collide on the unique (conversation, seq) and retry.
    """

    def __init__(self, sessions: async_sessionmaker[AsyncSession], *, notify: bool = False) -> None:
        self._sessions = sessions
        self._notify = notify
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        # One-shot per append, and the last seq known here: a waiter that is behind returns
        # at once, so an append between its read and its wait is never missed.
        self._changed: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self._latest: dict[str, int] = {}
        self._recent: OrderedDict[str, list[tuple[int, EncodedEvent]]] = OrderedDict()

    def _remember(self, conversation_id: str, seq: int, data: EncodedEvent) -> None:
        recent = self._recent.setdefault(conversation_id, [])
        self._recent.move_to_end(conversation_id)
        recent.append((seq, data))
        del recent[:-_RECENT_EVENTS]
        if len(self._recent) > _RECENT_CONVERSATIONS:
            self._recent.popitem(last=False)

    def _statement(
        self, conversation_id: str, data: EncodedEvent, while_running: str | None
    ) -> Executable:
        following = (
            select(func.coalesce(func.max(ConversationEvent.seq), 0) + 1)
            .where(ConversationEvent.conversation_id == conversation_id)
            .scalar_subquery()
        )
        row = select(
            literal(conversation_id),
            following,
            literal(data["type"]),
            literal(data, ConversationEvent.data.type),
            literal(utcnow(), ConversationEvent.created_at.type),
        )
        if while_running is not None:  # in the INSERT itself: no reap between check and write
            row = row.where(still_claimed(conversation_id, while_running))
        columns = ["conversation_id", "seq", "type", "data", "created_at"]
        inserted = insert(ConversationEvent).from_select(columns, row)
        returning = inserted.returning(ConversationEvent.seq)
        if not self._notify:
            return returning
        appended = returning.cte("appended")
        payload = literal(f"{conversation_id}:") + cast(appended.c.seq, String)
        return select(appended.c.seq, func.pg_notify(NOTIFY_CHANNEL, payload))

    async def append(
        self,
        conversation_id: str,
        event: BaseModel | EncodedEvent,
        *,
        with_rows: Callable[[], list[Base]] = list,
        while_running: str | None = None,
    ) -> int:
        """Append ``event`` (encoded here, or already by a graph step); ``with_rows`` makes rows
        committed in the same transaction.

        With ``while_running``, only while that run holds the conversation: else nothing is
        written (nor the rows) and :class:`ClaimLost` is raised.
        """
        data = encode(event) if isinstance(event, BaseModel) else event
        statement = self._statement(conversation_id, data, while_running)
        pool_waits = 0
        async with self._locks[conversation_id]:
            for attempt in range(_APPEND_ATTEMPTS):
                try:
                    async with self._sessions() as session:
                        session.add_all(with_rows())
                        appended = (await session.execute(statement)).scalar_one_or_none()
                        if appended is None:  # leaving the session rolls the rows back
                            raise ClaimLost(while_running)
                        await session.commit()
                    seq = int(appended)
                    break
                except IntegrityError:  # another worker took that seq just now
                    if attempt == _APPEND_ATTEMPTS - 1:
                        raise
                    await asyncio.sleep(_jitter.uniform(0, 0.002))  # let the other one through
                except PoolTimeout:  # no connection came free in time: nothing was written
                    pool_waits += 1
                    if pool_waits == _POOL_WAITS:
                        raise
        self._remember(conversation_id, seq, data)
        self.wake(conversation_id, seq)
        return seq

    def wake(self, conversation_id: str, seq: int) -> None:
        """Events up to ``seq`` exist: wake this worker's streams of that conversation."""
        if seq > self._latest.get(conversation_id, 0):
            self._latest[conversation_id] = seq
        changed = self._changed.pop(conversation_id, None)
        if changed is not None:
            changed.set()

    def wake_all(self) -> None:
        """Every waiter re-reads the table (after missed notifications)."""
        self._recent.clear()  # what we remember may end short of what was missed
        changed, self._changed = self._changed, defaultdict(asyncio.Event)
        for event in changed.values():
            event.set()

    async def since(self, conversation_id: str, after: int) -> list[tuple[int, EncodedEvent]]:
        """From memory when this worker appended all of them, else a short session's read."""
        tail = [(seq, data) for seq, data in self._recent.get(conversation_id, []) if seq > after]
        # Complete only if the seqs run on from `after` with no gap (another worker leaves one)
        # up to the newest known here (a notification may announce more).
        if (
            tail
            and tail[0][0] == after + 1
            and tail[-1][0] - tail[0][0] == len(tail) - 1
            and tail[-1][0] >= self._latest.get(conversation_id, 0)
        ):
            return tail
        async with self._sessions() as session:
            rows = await session.execute(
                select(ConversationEvent.seq, ConversationEvent.data)
                .where(
                    ConversationEvent.conversation_id == conversation_id,
                    ConversationEvent.seq > after,
                )
                .order_by(ConversationEvent.seq)
            )
            return [(seq, EncodedEvent(data)) for seq, data in rows]

    async def wait(self, conversation_id: str, after: int, timeout_s: float) -> None:
        """Until an event past ``after`` is known here, or the timeout (the safety-net poll)."""
        if self._latest.get(conversation_id, 0) > after:
            return
        try:
            await asyncio.wait_for(self._changed[conversation_id].wait(), timeout_s)
        except TimeoutError:
            return
