"""What one run says — and only while it still holds its conversation.

On PostgreSQL a run's claim can be taken while the run goes on: the connection holding its lock
dies (PostgreSQL restarted, a proxy cut it), another worker finds the lock free, reaps the claim
and tells the person the run was interrupted. The run is not told. So every event it appends is
conditional on its run id still being the conversation's, in the appending statement itself
(:func:`sstools.storage.runs.still_claimed`), and it checks the same before each graph step, so
that no tool starts once the claim is gone. :class:`ClaimLost` ends the run without another
word: the reaper has had the last one. (A step already under way — a write already sent — is
not called back: its outcome is just never claimed.) On SQLite the one worker never loses a
claim it holds, and every check passes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from langgraph.types import Interrupt
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sstools.agent.events import ConfirmRequired, EncodedEvent, EventLog, encode
from sstools.agent.guardrails import GuardrailDecision
from sstools.agent.invocation import CardRequest
from sstools.agent.tools import CATALOGUE
from sstools.metrics import CONFIRMATIONS, count_approval
from sstools.storage import confirmations, runs
from sstools.storage.models import Base, ConversationMessage
from sstools.storage.runs import ClaimLost as ClaimLost


class RunOutput:
    """The events of run ``run_id`` in ``conversation_id``, each refused once it lost its claim."""

    def __init__(
        self,
        *,
        events: EventLog,
        sessions: async_sessionmaker[AsyncSession],
        conversation_id: str,
        run_id: str,
    ) -> None:
        self._events = events
        self._sessions = sessions
        self.conversation_id = conversation_id
        self.run_id = run_id

    async def say(
        self, event: BaseModel | EncodedEvent, *, with_rows: Callable[[], list[Base]] = list
    ) -> None:
        """Append ``event`` (and ``with_rows``) while the run holds the conversation."""
        await self._events.append(
            self.conversation_id, event, with_rows=with_rows, while_running=self.run_id
        )

    async def before_step(self) -> None:
        """:class:`ClaimLost` if the run lost its claim: then the next step must not start."""
        async with self._sessions() as session:
            if not await runs.holds_claim(session, self.conversation_id, self.run_id):
                raise ClaimLost(self.run_id)

    async def record(self, data: EncodedEvent) -> None:
        """An event a step emitted, stored as encoded; a message also goes to the history, in
        the same commit."""

        def history() -> list[Base]:
            if data["type"] != "message":
                return []
            return [
                ConversationMessage(
                    conversation_id=self.conversation_id,
                    role="assistant",
                    text=data["text"],
                    uicontext=None,
                )
            ]

        await self.say(data, with_rows=history)

    async def ask(
        self, pending: Interrupt, *, username: str, user_id: str | None, expires_at: datetime
    ) -> ConfirmRequired:
        """Show the card of a paused run: the pending confirmation and its card in one commit.

        A reaper that finds the confirmation pending leaves the run's claim quietly (the card is
        there to decide), so the two must not exist apart.
        """
        value: CardRequest = pending.value
        call = value["call"]
        tool = CATALOGUE[call["name"]]
        decision = GuardrailDecision.model_validate(value["decision"])
        card = ConfirmRequired(
            confirmation_id=value["confirmation_id"],
            tool=tool.name,
            title=tool.title,
            call_id=call["id"],
            args=call["args"],
            decision=decision,
            expires_at=expires_at,
            run_id=self.run_id,
        )
        data = encode(card)  # once: the card in the log and in its confirmation row

        def confirmation() -> list[Base]:
            return [
                confirmations.pending_row(
                    confirmation_id=value["confirmation_id"],
                    conversation_id=self.conversation_id,
                    interrupt_id=pending.id,
                    call_id=call["id"],
                    tool=tool.name,
                    args_hash=value["args_hash"],
                    env_id=decision.env_id,
                    username=username,
                    requester_id=user_id,
                    event=data,
                    expires_at=expires_at,
                )
            ]

        await self.say(data, with_rows=confirmation)
        CONFIRMATIONS.labels("asked").inc()
        count_approval(decision.stage.value if decision.stage else None, "asked")
        return card
