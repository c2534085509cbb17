"""Runs: one at a time per conversation; graph progress → stored events; confirmations.

A run starts from a message or resumes from a decision. It ends with ``done`` — or, paused on a
confirmation, with ``confirm_required``. Everything a client needs to catch up is in the event
log and the confirmations table, so a reconnect after a server restart loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sstools import clock
from sstools.agent.card.edits import EditedCall
from sstools.agent.context import UIContext
from sstools.agent.events import (
    Decided,
    EventLog,
    RunStarted,
)
from sstools.agent.graph import AgentGraph
from sstools.agent.invocation import ConfirmationAnswer
from sstools.agent.run.budget import OverBudget as OverBudget
from sstools.agent.run.budget import TokenBudget, TokenLimits
from sstools.agent.run.claims import Busy as Busy
from sstools.agent.run.claims import RunClaims
from sstools.agent.run.claims import TooManyRuns as TooManyRuns
from sstools.agent.run.context import RunContext
from sstools.agent.run.decisions import AlreadyDecided as AlreadyDecided
from sstools.agent.run.decisions import Resolution
from sstools.agent.run.drive import RunDriver, run_config
from sstools.agent.run.locks import RunLocks
from sstools.agent.run.similar import SimilarApprovals
from sstools.agent.run.stream_slots import StreamSlots
from sstools.agent.run.wakeups import EventListener
from sstools.auth.tokens import Caller
from sstools.llm.configured import close_chat_model
from sstools.metrics import CONFIRMATIONS, count_approval
from sstools.storage import confirmations
from sstools.storage.confirmations import ConfirmationStatus
from sstools.storage.conversations import Forgotten, delete_conversation
from sstools.storage.models import Base, Confirmation, ConversationMessage

Clock = Callable[[], datetime]
Checkpoints = Callable[[], AbstractAsyncContextManager[BaseCheckpointSaver[Any]]]

_log = structlog.get_logger("sstools.agent")
# How long an answer to a card waits for the run that showed it to let the conversation go.
ANSWER_WAIT_S = 2.0


def _now() -> datetime:
    return clock.now()


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _acting(
    user: Caller, token: str, run_id: str, approved_similar: frozenset[tuple[str, str, str]]
) -> RunContext:
    """The run of the person who wrote the message or decided the card, acting with their token."""
    return RunContext(
        username=user.username,
        user_id=user.uid,
        role=user.role,
        token=token,
        run_id=run_id,
        approved_similar=approved_similar,
    )


class AgentRuntime:
    def __init__(
        self,
        *,
        graph: AgentGraph,
        sessions: async_sessionmaker[AsyncSession],
        events: EventLog,
        checkpoints: Checkpoints,
        confirmation_ttl_s: float,
        streams: StreamSlots,
        similar_allowed: bool = True,
        similar_ttl_s: float = 3600.0,
        runs_per_user: int,
        token_limits: TokenLimits | None = None,
        locks: RunLocks | None = None,
        listener: EventListener | None = None,
        on_message: Callable[[str], None] | None = None,
        clock: Clock = _now,
    ) -> None:
        self._graph_builder = graph
        self._on_message = on_message  # the router starts on a message while it is stored
        self._sessions = sessions
        self.events = events
        self._checkpoints = checkpoints
        self.claims = RunClaims(
            sessions=sessions, events=events, locks=locks or RunLocks(), runs_per_user=runs_per_user
        )
        self._listener = listener
        self._ttl = timedelta(seconds=confirmation_ttl_s)
        self.similar = SimilarApprovals(
            sessions, allowed=similar_allowed, ttl_s=similar_ttl_s, clock=lambda: self.clock()
        )
        self.streams = streams
        self.clock = clock  # confirmation expiry and the budget's day read this: tests move it
        self.budget = TokenBudget(sessions, token_limits or TokenLimits(), lambda: self.clock())
        self._stack = contextlib.AsyncExitStack()
        self._graph: CompiledStateGraph[Any, Any, Any, Any] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        saver = await self._stack.enter_async_context(self._checkpoints())
        self._graph = self._graph_builder.compile(saver)
        await self.claims.start()
        self._stack.push_async_callback(self.claims.aclose)
        if self._listener is not None:
            await self._listener.start()
            self._stack.push_async_callback(self._listener.aclose)

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._stack.aclose()
        await close_chat_model(self._graph_builder.model)

    @property
    def offline(self) -> bool:
        """Whether the offline planner answers (no language model configured)."""
        return self._graph_builder.offline

    @property
    def sessions(self) -> async_sessionmaker[AsyncSession]:
        return self._sessions

    @property
    def graph(self) -> CompiledStateGraph[Any, Any, Any, Any]:
        assert self._graph is not None, "AgentRuntime.start() was not awaited"
        return self._graph

    async def forget(self, conversation_id: str) -> None:
        """Delete an idle conversation and its checkpoints; :class:`Busy` while a run holds it."""
        async with self._sessions() as session:
            if await delete_conversation(session, conversation_id) is Forgotten.busy:
                raise Busy(conversation_id)
        await self.graph.checkpointer.adelete_thread(conversation_id)  # type: ignore[union-attr]

    # -- starting and resuming --------------------------------------------------------------

    async def pending_confirmation(self, conversation_id: str) -> Confirmation | None:
        # One read in the usual case: every stream and history request comes through here.
        async with self._sessions() as session:
            pending = await confirmations.find_pending(session, conversation_id)
        if pending is not None and _aware(pending.expires_at) <= self.clock():
            await self.expire_stale(conversation_id)
            async with self._sessions() as session:
                pending = await confirmations.find_pending(session, conversation_id)
        return pending

    async def post_message(
        self,
        conversation_id: str,
        user: Caller,
        token: str,
        text: str,
        context: UIContext | None,
    ) -> str:
        if await self.pending_confirmation(conversation_id) is not None:
            raise Busy(conversation_id)
        if not self.offline:  # before anything starts: a turn under way is never cut
            await self.budget.check(user)
        if self._on_message is not None:
            # Before the claim, a third of the time the embedding has to hide in; a 409 or
            # 429 from the claim then wastes one embedding (≈ 25 ms of one core).
            self._on_message(text)
        ahead = await self.similar.covered(conversation_id, user)
        run_id = await self.claims.claim(conversation_id, capped_for=user.username)
        raw_context = context.public() if context else None

        def message() -> list[Base]:
            return [
                ConversationMessage(
                    conversation_id=conversation_id, role="user", text=text, uicontext=raw_context
                )
            ]

        try:
            # The message and run_started in one commit, before the POST returns: an open
            # stream has its first event without waiting for the run's task to be scheduled.
            await self.events.append(conversation_id, RunStarted(run_id=run_id), with_rows=message)
        except BaseException:
            await self.claims.release(conversation_id, run_id)
            raise
        state = {
            "messages": [HumanMessage(content=text)],
            "context": raw_context,
            "queue": [],
            "current": None,
        }
        self._spawn(conversation_id, state, _acting(user, token, run_id, ahead), started=True)
        return run_id

    async def still_waiting(self, confirmation: Confirmation) -> bool:
        state = await self.graph.aget_state(run_config(confirmation.conversation_id))
        return confirmation.interrupt_id in {item.id for item in state.interrupts}

    async def decide(
        self,
        confirmation: Confirmation,
        decision: str,
        user: Caller,
        token: str,
        reason: str | None = None,
        *,
        similar: bool = False,
    ) -> str:
        """Record the decision (once: a second one is :class:`AlreadyDecided`), then resume.
        ``similar``: the approval covers similar calls for the rest of the conversation."""
        status = ConfirmationStatus.approved if decision == "approve" else ConfirmationStatus.denied

        async def once(session: AsyncSession, now: datetime) -> bool:
            covers = similar and status is ConfirmationStatus.approved
            version = user.token_version  # an approval «for similar ones» lasts this sign-in
            return await confirmations.decide_once(
                session, confirmation.id, status, now, similar=covers, token_version=version
            )

        said = reason if status is ConfirmationStatus.denied else None
        return await self.resume(confirmation, Resolution(status, user, token, said), once)

    async def edit(
        self, confirmation: Confirmation, edit: EditedCall, user: Caller, token: str
    ) -> str:
        """Record that the person changed the card (once, as a decision), then resume the run
        with the edited call, which is assessed and planned again and gets a card of its own."""

        async def once(session: AsyncSession, now: datetime) -> bool:
            return await confirmations.decide_once(
                session, confirmation.id, ConfirmationStatus.edited, now
            )

        resolution = Resolution(ConfirmationStatus.edited, user, token, edit=edit)
        return await self.resume(confirmation, resolution, once)

    async def resume(
        self,
        confirmation: Confirmation,
        resolution: Resolution,
        record: Callable[[AsyncSession, datetime], Awaitable[bool]],
    ) -> str:
        """``record`` the decision (a compare-and-set: losing it is :class:`AlreadyDecided`),
        then resume the paused run with it, ``resolution.acting`` acting."""
        if _aware(confirmation.expires_at) <= self.clock():
            await self.expire_stale(confirmation.conversation_id)
            raise AlreadyDecided(confirmation.id, expired=True)
        # The turn first, then the decision: a reaper that finds the card still pending under our
        # lock releases a dead worker's claim quietly, and never interrupts the run we resume.
        run_id = await self._claim_to_answer(confirmation)
        try:
            if not await self.still_waiting(confirmation):
                raise AlreadyDecided(confirmation.id)  # the run no longer waits for it
            now = self.clock()
            async with self._sessions() as session:
                won = await record(session, now)
            if not won:
                raise AlreadyDecided(confirmation.id)
            # With the decision just recorded: an approval «for similar ones» counts at once.
            ahead = await self.similar.covered(confirmation.conversation_id, resolution.acting)
        except BaseException:
            await self.claims.release(confirmation.conversation_id, run_id)
            raise
        answer = resolution.answer(confirmation)
        CONFIRMATIONS.labels(answer["decision"]).inc()
        stage = confirmations.card_stage(confirmation)
        count_approval(stage, resolution.status.value, confirmation.created_at, now)
        context = _acting(resolution.acting, resolution.token, run_id, ahead)
        decided = resolution.decided(confirmation, now)
        self._spawn(confirmation.conversation_id, Command(resume=answer), context, decided=decided)
        return run_id

    async def _claim_to_answer(self, confirmation: Confirmation) -> str:
        """The run that showed the card lets the conversation go just after: an answer sent in
        between waits for that, briefly, instead of being refused as busy."""
        deadline = time.monotonic() + ANSWER_WAIT_S
        while True:
            try:
                return await self.claims.claim(confirmation.conversation_id)
            except Busy:
                pending = await self.pending_confirmation(confirmation.conversation_id)
                if time.monotonic() >= deadline or pending is None or pending.id != confirmation.id:
                    raise
                await asyncio.sleep(0.05)

    async def expire_stale(self, conversation_id: str) -> None:
        """A confirmation past its expiry is marked expired, and its run cancelled with a message.

        Nobody decided, so nobody acts: the run resumes with no role and no token, and the only
        step it can reach is the cancellation.
        """
        try:  # the turn before the expiry, as in decide(): a reaper must see the card pending
            run_id = await self.claims.claim(conversation_id)
        except Busy:
            return  # a turn holds it: the next read expires the card
        resumed = False
        now = self.clock()
        try:
            async with self._sessions() as session:
                expired = await confirmations.expire_due(session, conversation_id, now)
            for confirmation in expired:
                CONFIRMATIONS.labels("expired").inc()
                count_approval(confirmations.card_stage(confirmation), "expired")
                if resumed or not await self.still_waiting(confirmation):
                    continue
                answer: ConfirmationAnswer = {
                    "decision": "expired",
                    "confirmation_id": confirmation.id,
                    "args_hash": confirmation.args_hash,
                }
                nobody = RunContext(
                    username=confirmation.username,
                    user_id=confirmation.requester_id,
                    role=None,
                    token="",
                    run_id=run_id,
                )
                decided = Decided(
                    confirmation_id=confirmation.id,
                    call_id=confirmation.call_id,
                    status="expired",
                    by=None,
                    at=now,
                )
                self._spawn(conversation_id, Command(resume=answer), nobody, decided=decided)
                resumed = True
        finally:
            if not resumed:
                await self.claims.release(conversation_id, run_id)

    # -- driving the graph ------------------------------------------------------------------

    def _spawn(
        self,
        conversation_id: str,
        graph_input: Any,
        context: RunContext,
        *,
        started: bool = False,
        decided: Decided | None = None,
    ) -> None:
        drive = RunDriver(
            graph=self.graph,
            events=self.events,
            sessions=self._sessions,
            claims=self.claims,
            expires_at=lambda: self.clock() + self._ttl,
            budget=self.budget,
        )
        task = asyncio.create_task(drive(conversation_id, graph_input, context, started, decided))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
