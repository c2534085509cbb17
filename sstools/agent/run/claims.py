"""One turn per conversation at a time, across every worker; dead workers' turns reaped once.

A turn takes the conversation's run lock (:mod:`sstools.agent.run.locks`), then claims
``conversations.active_run_id``; it gives both back when it ends. A claim whose lock is free
belongs to a process that died mid-turn: it is released by a conditional ``UPDATE`` (so however
many workers race to reap it, one wins) and reported ``run_interrupted`` once — unless the turn
had paused on a confirmation, which is still there to decide. Checked at start, when a message
finds its conversation claimed, and (with other workers) every :data:`DEAD_RUN_SWEEP_S`.
"""

from __future__ import annotations

import asyncio
import secrets

import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sstools.agent import explain
from sstools.agent.events import Done, EventLog
from sstools.agent.run.locks import RunLocks
from sstools.errors import SstoolsError
from sstools.storage import confirmations, runs
from sstools.storage.runs import Claim

_log = structlog.get_logger("sstools.agent")

# How often a worker on a shared database looks for runs whose worker died (seconds).
DEAD_RUN_SWEEP_S = 5.0


class Busy(SstoolsError):
    """The conversation has a run in progress or a confirmation waiting (→ 409)."""


class TooManyRuns(SstoolsError):
    """The user already has as many runs going as allowed, across conversations (→ 429)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"at most {limit} agent runs at once per user")
        self.limit = limit


class RunClaims:
    def __init__(
        self,
        *,
        sessions: async_sessionmaker[AsyncSession],
        events: EventLog,
        locks: RunLocks,
        runs_per_user: int,
    ) -> None:
        self._sessions = sessions
        self._events = events
        self.locks = locks
        self._runs_per_user = runs_per_user
        self._sweeper: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.locks.start()
        await self.reap_dead_runs()
        if self.locks.shared:  # other workers may die mid-run at any time
            self._sweeper = asyncio.create_task(self._sweep_forever())

    async def aclose(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            await asyncio.gather(self._sweeper, return_exceptions=True)
        await self.locks.aclose()

    async def claim(self, conversation_id: str, *, capped_for: str | None = None) -> str:
        """The conversation's lock, then its claim: a new run id, or Busy / TooManyRuns."""
        if not await self.locks.acquire(conversation_id):
            raise Busy(conversation_id)
        run_id = f"run_{secrets.token_hex(8)}"
        try:
            claim = await self._claim_row(conversation_id, run_id, capped_for)
            if claim is Claim.busy and self.locks.shared:  # the lock was free: its worker died
                async with self._sessions() as session:
                    stale = await runs.active_run(session, conversation_id)
                if stale is not None and await self._reap(conversation_id, stale):
                    claim = await self._claim_row(conversation_id, run_id, capped_for)
        except BaseException:
            await self.locks.release(conversation_id)
            raise
        if claim is not Claim.claimed:
            await self.locks.release(conversation_id)
            if claim is Claim.over_cap:
                raise TooManyRuns(self._runs_per_user)
            raise Busy(conversation_id)
        return run_id

    async def _claim_row(self, conversation_id: str, run_id: str, capped_for: str | None) -> Claim:
        async with self._sessions() as session:
            return await runs.claim_run(
                session, conversation_id, run_id, capped_for=capped_for, cap=self._runs_per_user
            )

    async def release(self, conversation_id: str, run_id: str) -> bool:
        """The turn is over (or never started): its claim, then its lock.

        False when the claim was no longer ``run_id``'s: a reaper released it, and said so.
        """
        try:
            async with self._sessions() as session:
                return await runs.release_run(session, conversation_id, run_id=run_id)
        except Exception:  # a sweep (or the next start) reaps it once the lock is free
            _log.exception("could not release the run", conversation_id=conversation_id)
            return True  # nobody reaped it that we know of: the turn ends as it would
        finally:
            await self.locks.release(conversation_id)

    # -- runs whose worker died ----------------------------------------------------------------

    async def reap_dead_runs(self) -> int:
        """Release every claim whose lock nobody holds; how many this worker released.

        At start on SQLite that is every claim (the one process restarted); on PostgreSQL only
        those of dead workers — live runs on other workers hold their locks and are left alone.
        """
        async with self._sessions() as session:
            claimed = dict(await runs.claimed_runs(session))
        reaped = 0
        for conversation_id in await self.locks.free_elsewhere(claimed):
            if not await self.locks.acquire(conversation_id):
                continue  # a turn took it just now: alive
            try:
                reaped += await self._reap(conversation_id, claimed[conversation_id])
            finally:
                await self.locks.release(conversation_id)
        return reaped

    async def _reap(self, conversation_id: str, run_id: str) -> bool:
        """With the lock held: end ``run_id``'s dead claim, reporting it once across workers."""
        async with self._sessions() as session:
            released = await runs.release_run(session, conversation_id, run_id=run_id)
            paused = await confirmations.find_pending(session, conversation_id) is not None
        if not released:
            return False  # another worker reaped it first
        _log.warning("run interrupted", conversation_id=conversation_id, run_id=run_id)
        if not paused:  # it died after asking: the confirmation is still there to decide
            await self._events.append(conversation_id, explain.run_interrupted(run_id))
            await self._events.append(conversation_id, Done(run_id=run_id))
        return True

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(DEAD_RUN_SWEEP_S)
            try:
                await self.reap_dead_runs()
            except Exception:  # the database away for a moment: try at the next sweep
                _log.exception("dead run sweep failed")
