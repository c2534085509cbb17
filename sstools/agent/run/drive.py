"""Driving one run of the graph: its stream becomes stored events — tokens, the steps' events,
a card when it pauses — and ``done`` when it ends, unless it paused or lost its claim."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import structlog
from langchain_core.messages import AIMessageChunk
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sstools.agent import explain
from sstools.agent.events import ConfirmRequired, Decided, Done, EventLog, RunStarted, TokenEvent
from sstools.agent.graph import RECURSION_LIMIT
from sstools.agent.run.budget import TokenBudget
from sstools.agent.run.claims import RunClaims
from sstools.agent.run.context import RunContext
from sstools.agent.run.output import ClaimLost, RunOutput
from sstools.agent.run.streamed import Streamed

_log = structlog.get_logger("sstools.agent")


def run_config(conversation_id: str) -> RunnableConfig:
    """A conversation is one checkpoint thread."""
    return {"configurable": {"thread_id": conversation_id}, "recursion_limit": RECURSION_LIMIT}


@dataclass(frozen=True)
class RunDriver:
    """Drives one run; made per run by the runtime, which owns the claims and the clock."""

    graph: CompiledStateGraph[Any, Any, Any, Any]
    events: EventLog
    sessions: async_sessionmaker[AsyncSession]
    claims: RunClaims
    expires_at: Callable[[], datetime]  # a card shown now waits until then
    budget: TokenBudget | None = None  # each model call's tokens, counted for the person

    async def __call__(
        self,
        conversation_id: str,
        graph_input: Any,
        context: RunContext,
        started: bool,
        decided: Decided | None = None,
    ) -> None:
        """``started``: run_started is already in the log (a message writes it with itself);
        ``decided``: the decision on a card this run resumes from, told in its run_started."""
        run_id = context.run_id
        out = RunOutput(
            events=self.events,
            sessions=self.sessions,
            conversation_id=conversation_id,
            run_id=run_id,
        )
        card: ConfirmRequired | None = None
        try:
            if not started:
                await out.say(RunStarted(run_id=run_id, decided=decided))
            parts = self.graph.astream(
                graph_input,
                run_config(conversation_id),
                context=context,
                stream_mode=["updates", "messages"],
                durability="sync",  # a crash between interrupt and decision loses nothing
            )
            streamed = Streamed()
            # Closed on the way out: a run that lost its claim stops here, tools and all.
            async with contextlib.aclosing(cast(AsyncGenerator[Any], parts)):
                async for part in parts:
                    mode, chunk = cast(tuple[str, Any], part)
                    if mode == "messages":
                        message, _ = chunk
                        if isinstance(message, AIMessageChunk) and message.text:
                            shown = streamed.showable(message.id or "", message.text)
                            if shown:
                                await out.say(TokenEvent(text=shown, run_id=run_id))
                        continue
                    await self._count(chunk, context)  # spent even if the claim is lost now
                    await out.before_step()  # the next step (a write, say) waits for this
                    for node, node_update in chunk.items():
                        if node == "__interrupt__":
                            expires_at = self.expires_at()
                            pending = node_update[0]
                            card = await out.ask(
                                pending,
                                username=context.username,
                                user_id=context.user_id,
                                expires_at=expires_at,
                            )
                            continue
                        for data in (node_update or {}).get("emit", []):
                            await out.record(data)
        except ClaimLost:  # reaped while it ran: the reaper has told the person, not a word more
            _log.warning("run lost its claim", conversation_id=conversation_id, run_id=run_id)
        except Exception as exc:  # say what failed, never hang the chat
            with contextlib.suppress(ClaimLost):
                await out.say(explain.run_failed(exc, conversation_id, run_id, RECURSION_LIMIT))
        finally:
            # Released before `done`: a message sent on seeing it must not find us busy. No
            # longer ours: a reaper released it, and said `done` itself.
            ours = await self.claims.release(conversation_id, run_id)
            if card is None and ours:
                await self.events.append(conversation_id, Done(run_id=run_id))

    async def _count(self, updates: dict[str, Any], acting: RunContext) -> None:
        """A model call's tokens (an agent step's ``spent``) go to the person's day."""
        for update in updates.values():
            if self.budget is not None and isinstance(update, dict) and update.get("spent"):
                await self.budget.spend(acting, update["spent"])
