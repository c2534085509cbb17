"""How often one object may be the subject of a heavy task: moving windows per kind (``limits``).

A validation runs every chart's query (prod's included) and the model's review; a documentation
asks the model and commits. So each dashboard may have only so many of each per window, whoever
asks. A start counts once it is accepted: a start refused (409, 429) spends nothing. The
counters live in this process's memory, as the login limits do: with several workers each keeps
its own (a shared store such as Redis is the step when sstools scales out).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass

from fastapi import Request
from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter

from sstools.http.app_state import made_once
from sstools.http.deps import SettingsDep
from sstools.tasks.models import TaskKind


@dataclass(frozen=True)
class TooOften:
    """``amount`` starts in ``window_s`` seconds already; one more in ``retry_after_s``."""

    amount: int
    window_s: int
    retry_after_s: int


class StartThrottle:
    def __init__(self, rates: Mapping[TaskKind, str]) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._items: dict[TaskKind, RateLimitItem] = {
            kind: parse(rate) for kind, rate in rates.items()
        }

    async def refused(self, kind: TaskKind, env_id: str, key: str) -> TooOften | None:
        """Whether starting ``kind`` on ``key`` in ``env_id`` now is over its limit."""
        item = self._items[kind]
        if await self._limiter.test(item, kind.value, env_id, key):
            return None
        stats = await self._limiter.get_window_stats(item, kind.value, env_id, key)
        wait = max(1, math.ceil(stats.reset_time - time.time()))
        return TooOften(amount=item.amount, window_s=item.get_expiry(), retry_after_s=wait)

    async def count(self, kind: TaskKind, env_id: str, key: str) -> None:
        """One accepted start of ``kind`` on ``key`` in ``env_id``."""
        await self._limiter.hit(self._items[kind], kind.value, env_id, key)


async def start_throttle(request: Request, settings: SettingsDep) -> StartThrottle:
    """The app's one start throttle, made on first use (its counters live as long as the app)."""
    return made_once(
        request,
        "start_throttle",
        lambda: StartThrottle(
            {
                TaskKind.validation: settings.validation_limit_per_dashboard,
                TaskKind.documentation: settings.documentation_limit_per_dashboard,
            }
        ),
    )
