"""A drift check someone asks for (``POST /api/drift/check``, «Проверить сейчас» on ``/drift``).

A check of the whole fleet asks Superset hundreds of times, so a request never starts one lightly:

- a report younger than ``SSTOOLS_DRIFT_FRESH_S`` (the watch's, or an earlier request's) is the
  answer at once;
- one check runs at a time in this app: a request while one runs waits for it and shares its
  report (its own cancellation leaves the check running for the others);
- each person may start ``SSTOOLS_DRIFT_CHECK_LIMIT_PER_USER`` checks per window (``limits``'
  moving window, in this process's memory like the login limits); one more is
  :class:`DriftCheckLimited` (429). Sharing a check under way, or a fresh report, spends nothing.

With no report at all yet, ``GET /api/drift`` waits for the same one check and ``/drift`` starts
it and shows its progress (:meth:`DriftOnRequest.progress`); it is counted against nobody. A
read that finds environments a deploy, migration, rollback or restore wrote after their check
starts a check of those alone (and of their downstream) in the background, counted against
nobody: the report is merged when it ends.
"""

from __future__ import annotations

import asyncio
import math
import time
from datetime import timedelta
from typing import Annotated

from fastapi import Depends, Request
from limits import parse
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter
from sqlalchemy.ext.asyncio import AsyncSession

from sstools import clock
from sstools.domain.drift.models import DriftProgress, DriftReport
from sstools.domain.drift.watch import fresh, latest, written_since
from sstools.errors import SstoolsError
from sstools.http.app_state import made_once
from sstools.http.deps import SettingsDep
from sstools.http.services import Services
from sstools.russian import plural_form
from sstools.texts import drift as texts
from sstools.texts import validation as validation_texts


class DriftCheckLimited(SstoolsError):
    """The person started as many checks as the window allows (→ 429 with Retry-After)."""

    def __init__(self, amount: int, window_s: int, retry_after_s: int) -> None:
        super().__init__(
            texts.CHECK_LIMITED.format(
                amount=amount,
                times=plural_form(amount, *validation_texts.TIMES),
                window=validation_texts.window_text(window_s),
                wait=retry_after_s,
            )
        )
        self.retry_after_s = retry_after_s


class DriftOnRequest:
    """This app's one check under way, its freshness rule and its per-person limit."""

    def __init__(self, fresh_s: float, rate: str) -> None:
        self._fresh = timedelta(seconds=fresh_s)
        self._item = parse(rate)
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._lock = asyncio.Lock()
        self._running: asyncio.Task[DriftReport] | None = None
        self._progress = DriftProgress(running=False, done=0, total=0, env_ids=None)
        self.waiting = 0  # requests waiting for the check under way (what sharing it saves)

    def progress(self) -> DriftProgress:
        running = self._running is not None and not self._running.done()
        return self._progress.model_copy(update={"running": running})

    async def latest_or_start(
        self, services: Services, session: AsyncSession
    ) -> DriftReport | None:
        """The newest report at once, never waiting for a check: none yet, the first check is
        started (or is under way); environments written since their check are checked again
        in the background."""
        known, _ = await self.latest_and_rechecked(services, session)
        if known is None:
            async with self._lock:
                self._running_or_start(services)
        return known

    async def latest_and_rechecked(
        self, services: Services, session: AsyncSession
    ) -> tuple[DriftReport | None, list[str]]:
        """The newest report at once, and the environments a write made stale since, checked
        again in the background; never a first check (for pages that only glance at drift)."""
        known = await latest(services, session)
        stale = [] if known is None else await written_since(services, session, known)
        if stale:
            async with self._lock:
                self._running_or_start(services, stale, known)
        return known, stale

    async def latest_or_first(self, services: Services, session: AsyncSession) -> DriftReport:
        """The newest report; none yet: the one check (started, or under way)."""
        known = await self.latest_or_start(services, session)
        if known is not None:
            return known
        async with self._lock:
            running = self._running_or_start(services)
        return await self._wait(running)

    async def check_now(
        self, services: Services, session: AsyncSession, username: str
    ) -> DriftReport:
        """A report checked no longer ago than the freshness allows: a fresh-enough one at once,
        the one under way, or a new check counted against ``username``."""
        known = await latest(services, session)
        if known is not None and clock.now() - known.checked_at < self._fresh:
            return known
        async with self._lock:
            starting = self._running is None or self._running.done()
            if starting and not await self._limiter.hit(self._item, username):
                raise await self._limited(username)
            running = self._running_or_start(services)
        return await self._wait(running)

    async def _wait(self, running: asyncio.Task[DriftReport]) -> DriftReport:
        # Shielded: a caller that goes away leaves the check running for the others.
        self.waiting += 1
        try:
            return await asyncio.shield(running)
        finally:
            self.waiting -= 1

    def _running_or_start(
        self,
        services: Services,
        env_ids: list[str] | None = None,
        base: DriftReport | None = None,
    ) -> asyncio.Task[DriftReport]:
        """The check under way, or a new one (``env_ids``: only those, merged into ``base``)."""
        if self._running is None or self._running.done():
            self._progress = DriftProgress(running=True, done=0, total=0, env_ids=env_ids)

            def told(done: int, total: int) -> None:
                self._progress = self._progress.model_copy(update={"done": done, "total": total})

            self._running = asyncio.ensure_future(fresh(services, env_ids, base, told))
            # Read its outcome even when every waiter has gone: no "never retrieved" warning.
            self._running.add_done_callback(lambda done: done.cancelled() or done.exception())
        return self._running

    async def _limited(self, username: str) -> DriftCheckLimited:
        stats = await self._limiter.get_window_stats(self._item, username)
        wait = max(1, math.ceil(stats.reset_time - time.time()))
        return DriftCheckLimited(self._item.amount, self._item.get_expiry(), wait)


async def drift_on_request(request: Request, settings: SettingsDep) -> DriftOnRequest:
    """The app's one :class:`DriftOnRequest`, made on first use."""
    return made_once(
        request,
        "drift_on_request",
        lambda: DriftOnRequest(settings.drift_fresh_s, settings.drift_check_limit_per_user),
    )


DriftOnRequestDep = Annotated[DriftOnRequest, Depends(drift_on_request)]
