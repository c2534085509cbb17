"""Runs: one at a time per conversation; graph progress → stored events; confirmations.

A run starts from a message or resumes from a decision. It ends with ``done`` — or, paused on a
confirmation, with ``confirm_required``. Everything a client needs to catch up is in the event
log and the confirmations table, so a reconnect after a server restart loses nothing.
"""

from __future__ import annotations

import asyncio
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import structlog
from langchain_core.messages import AIMessageChunk, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sstools.agent import texts
from sstools.agent.context import UIContext
from sstools.agent.events import (
    EVENT_ADAPTER,
    ConfirmRequired,
    Done,
    ErrorEvent,
    EventLog,
    RunStarted,
    TokenEvent,
)
from sstools.agent.graph import RECURSION_LIMIT, AgentGraph, RunContext
from sstools.agent.guardrails import GuardrailDecision
from sstools.agent.tools import CATALOGUE
from sstools.auth.tokens import Principal
from sstools.storage.models import Confirmation, Conversation, ConversationMessage

_log = structlog.get_logger("sstools.agent")


class Busy(Exception):
    """The conversation has a run in progress or a confirmation waiting (→ 409)."""


class AlreadyDecided(Exception):
    """The confirmation was decided, has expired, or no longer matches the paused run (→ 409)."""


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class AgentRuntime:
    def __init__(
        self,
        *,
        graph: AgentGraph,
        sessions: async_sessionmaker[AsyncSession],
        events: EventLog,
        checkpoints_file: str,
        confirmation_ttl_s: float,
    ) -> None:
        self._graph_builder = graph
        self._sessions = sessions
        self.events = events
        self._checkpoints_file = checkpoints_file
        self._ttl = timedelta(seconds=confirmation_ttl_s)
        self._saver_cm: Any = None
        self._graph: CompiledStateGraph[Any, Any, Any, Any] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._saver_cm = AsyncSqliteSaver.from_conn_string(self._checkpoints_file)
        saver = await self._saver_cm.__aenter__()
        self._graph = self._graph_builder.compile(saver)
        await self._recover()

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._saver_cm is not None:
            await self._saver_cm.__aexit__(None, None, None)

    @property
    def graph(self) -> CompiledStateGraph[Any, Any, Any, Any]:
        assert self._graph is not None, "AgentRuntime.start() was not awaited"
        return self._graph

    async def _recover(self) -> None:
        """Runs in flight when the process died end with an explicit error; paused ones wait."""
        async with self._sessions() as session:
            stale = (
                await session.scalars(
                    select(Conversation).where(Conversation.active_run_id.is_not(None))
                )
            ).all()
            paused = set(
                await session.scalars(
                    select(Confirmation.conversation_id).where(Confirmation.status == "pending")
                )
            )
            for conversation in stale:
                run_id = conversation.active_run_id
                conversation.active_run_id = None
                await session.commit()
                if conversation.id in paused:
                    continue  # it died after asking: the confirmation is still there to decide
                await self.events.append(
                    conversation.id,
                    ErrorEvent(
                        code="run_interrupted", message=texts.RUN_INTERRUPTED, run_id=run_id
                    ),
                )
                await self.events.append(conversation.id, Done(run_id=run_id))

    # -- starting and resuming --------------------------------------------------------------

    async def pending_confirmation(self, conversation_id: str) -> Confirmation | None:
        await self.expire_stale(conversation_id)
        async with self._sessions() as session:
            return await session.scalar(
                select(Confirmation).where(
                    Confirmation.conversation_id == conversation_id,
                    Confirmation.status == "pending",
                )
            )

    async def _claim(self, conversation_id: str) -> str:
        run_id = f"run_{secrets.token_hex(8)}"
        async with self._sessions() as session:
            claimed = await session.execute(
                update(Conversation)
                .where(Conversation.id == conversation_id, Conversation.active_run_id.is_(None))
                .values(active_run_id=run_id)
            )
            await session.commit()
        if claimed.rowcount != 1:  # type: ignore[attr-defined]
            raise Busy(conversation_id)
        return run_id

    async def post_message(
        self,
        conversation_id: str,
        user: Principal,
        token: str,
        text: str,
        context: UIContext | None,
    ) -> str:
        if await self.pending_confirmation(conversation_id) is not None:
            raise Busy(conversation_id)
        run_id = await self._claim(conversation_id)
        raw_context = context.public() if context else None
        async with self._sessions() as session:
            session.add(
                ConversationMessage(
                    conversation_id=conversation_id, role="user", text=text, uicontext=raw_context
                )
            )
            await session.commit()
        state = {
            "messages": [HumanMessage(content=text)],
            "context": raw_context,
            "queue": [],
            "current": None,
        }
        self._spawn(conversation_id, run_id, state, user, token)
        return run_id

    async def decide(
        self,
        confirmation: Confirmation,
        decision: str,
        user: Principal,
        token: str,
        *,
        reason: str | None = None,
    ) -> str:
        """Record the decision (once: a second one is :class:`AlreadyDecided`), then resume."""
        status = {"approve": "approved", "deny": "denied"}[decision]
        if reason == "expired":
            status = "expired"
        elif _aware(confirmation.expires_at) <= _now():
            await self.expire_stale(confirmation.conversation_id)
            raise AlreadyDecided("expired")
        state = await self.graph.aget_state(self._config(confirmation.conversation_id))
        if confirmation.interrupt_id not in {item.id for item in state.interrupts}:
            raise AlreadyDecided("the run is no longer waiting for this confirmation")
        async with self._sessions() as session:
            won = await session.execute(
                update(Confirmation)
                .where(Confirmation.id == confirmation.id, Confirmation.status == "pending")
                .values(status=status, decided_at=_now())
            )
            await session.commit()
        if won.rowcount != 1:  # type: ignore[attr-defined]
            raise AlreadyDecided(confirmation.id)
        run_id = await self._claim(confirmation.conversation_id)
        resume = {
            "decision": decision,
            "confirmation_id": confirmation.id,
            "args_hash": confirmation.args_hash,
            "reason": reason,
        }
        self._spawn(confirmation.conversation_id, run_id, Command(resume=resume), user, token)
        return run_id

    async def expire_stale(self, conversation_id: str) -> None:
        """A confirmation past its expiry is cancelled, with the usual explicit message."""
        async with self._sessions() as session:
            expired = await session.scalar(
                select(Confirmation).where(
                    Confirmation.conversation_id == conversation_id,
                    Confirmation.status == "pending",
                    Confirmation.expires_at <= _now(),
                )
            )
        if expired is None:
            return
        owner = Principal(username=expired.username, role="analyst")  # deny needs no rights
        try:
            await self.decide(expired, "deny", owner, token="", reason="expired")
        except (AlreadyDecided, Busy):
            return

    # -- driving the graph ------------------------------------------------------------------

    @staticmethod
    def _config(conversation_id: str) -> RunnableConfig:
        return {"configurable": {"thread_id": conversation_id}, "recursion_limit": RECURSION_LIMIT}

    def _spawn(
        self, conversation_id: str, run_id: str, graph_input: Any, user: Principal, token: str
    ) -> None:
        context = RunContext(username=user.username, role=user.role, token=token, run_id=run_id)
        task = asyncio.create_task(self._drive(conversation_id, run_id, graph_input, context))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drive(
        self, conversation_id: str, run_id: str, graph_input: Any, context: RunContext
    ) -> None:
        paused = False
        await self.events.append(conversation_id, RunStarted(run_id=run_id))
        try:
            async for part in self.graph.astream(
                graph_input,
                self._config(conversation_id),
                context=context,
                stream_mode=["updates", "messages"],
                durability="sync",  # a crash between interrupt and decision loses nothing
            ):
                mode, chunk = cast(tuple[str, Any], part)
                if mode == "messages":
                    message, _ = chunk
                    if isinstance(message, AIMessageChunk) and message.text:
                        await self.events.append(
                            conversation_id, TokenEvent(text=message.text, run_id=run_id)
                        )
                    continue
                for node, node_update in chunk.items():
                    if node == "__interrupt__":
                        await self._ask(conversation_id, run_id, context, node_update[0])
                        paused = True
                        continue
                    for data in (node_update or {}).get("emit", []):
                        await self._record(conversation_id, run_id, data)
        except Exception as exc:  # the model or the graph failed: say so, never hang the chat
            _log.exception("run failed", conversation_id=conversation_id, run_id=run_id)
            await self.events.append(
                conversation_id,
                ErrorEvent(
                    code="llm_error",
                    message=texts.LLM_FAILED.format(detail=str(exc)[:300]),
                    run_id=run_id,
                ),
            )
        finally:
            async with self._sessions() as session:
                await session.execute(
                    update(Conversation)
                    .where(Conversation.id == conversation_id)
                    .values(active_run_id=None)
                )
                await session.commit()
            if not paused:
                await self.events.append(conversation_id, Done(run_id=run_id))

    async def _record(self, conversation_id: str, run_id: str, data: dict[str, Any]) -> None:
        event = EVENT_ADAPTER.validate_python({**data, "run_id": data.get("run_id") or run_id})
        await self.events.append(conversation_id, event)
        if data["type"] == "message":
            async with self._sessions() as session:
                session.add(
                    ConversationMessage(
                        conversation_id=conversation_id,
                        role="assistant",
                        text=data["text"],
                        uicontext=None,
                    )
                )
                await session.commit()

    async def _ask(
        self, conversation_id: str, run_id: str, context: RunContext, pending: Any
    ) -> None:
        value = pending.value
        call = value["call"]
        tool = CATALOGUE[call["name"]]
        decision = GuardrailDecision.model_validate(value["decision"])
        event = ConfirmRequired(
            confirmation_id=value["confirmation_id"],
            tool=tool.name,
            title=tool.title,
            call_id=call["id"],
            args=call["args"],
            decision=decision,
            expires_at=_now() + self._ttl,
            run_id=run_id,
        )
        async with self._sessions() as session:
            session.add(
                Confirmation(
                    id=value["confirmation_id"],
                    conversation_id=conversation_id,
                    interrupt_id=pending.id,
                    call_id=call["id"],
                    tool=tool.name,
                    args_hash=value["args_hash"],
                    env_id=decision.env_id,
                    username=context.username,
                    event=event.model_dump(mode="json"),
                    status="pending",
                    expires_at=event.expires_at,
                )
            )
            await session.commit()
        await self.events.append(conversation_id, event)
