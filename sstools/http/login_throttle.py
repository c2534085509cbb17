"""Login attempts, limited per username and per client address (moving windows, ``limits``).

Every attempt counts, right or wrong, and is counted before the password is hashed, so a flood
costs one hash per allowed attempt. The counters live in this process's memory: with several
workers each keeps its own (a shared store such as Redis is the step when sstools scales out).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from fastapi import Request
from limits import RateLimitItem, RateLimitItemPerSecond, parse
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import MovingWindowRateLimiter

from sstools.http.app_state import made_once
from sstools.http.deps import SettingsDep


@dataclass(frozen=True)
class Throttled:
    """The attempt is over a limit: try again in ``retry_after_s`` seconds.

    ``first`` is set once per key and window, so a flood writes one audit row, not thousands.
    """

    limit: str
    retry_after_s: int
    first: bool


class LoginThrottle:
    def __init__(self, per_user: str, per_address: str) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._per_user: RateLimitItem = parse(per_user)
        self._per_address: RateLimitItem = parse(per_address)

    async def attempt(self, username: str, address: str) -> Throttled | None:
        """Count one attempt; None when it may go ahead."""
        # The address first: an address over its limit spends nothing of the user's.
        checks = (("address", self._per_address, address), ("user", self._per_user, username))
        for name, item, key in checks:
            if not await self._limiter.hit(item, "login", name, key):
                stats = await self._limiter.get_window_stats(item, "login", name, key)
                wait = max(1, math.ceil(stats.reset_time - time.time()))
                once = RateLimitItemPerSecond(1, item.get_expiry())
                first = await self._limiter.hit(once, "login-throttled", name, key)
                return Throttled(limit=f"{name}: {item}", retry_after_s=wait, first=first)
        return None


async def login_throttle(request: Request, settings: SettingsDep) -> LoginThrottle:
    """The app's one throttle, made on first use (its counters live as long as the app)."""
    return made_once(
        request,
        "login_throttle",
        lambda: LoginThrottle(settings.login_limit_per_user, settings.login_limit_per_address),
    )
