"""A token budget per person (issue 39 §3): the model tokens one person may spend in the chat
per UTC day (``SSTOOLS_LLM_TOKENS_PER_USER_DAY``, per role ``SSTOOLS_LLM_TOKENS_PER_ROLE_DAY``).

Every model call of a run is counted against the person it acts for, as the provider reported it
or as the tokenizer estimates it (``llm/usage.py``), whether or not a budget is set: the audit
page shows each person's use. The budget is checked only when a message would start a run: a turn
already going is never cut, so the day's count may end above it; a decision on a card is not a
message and is never refused. The offline planner spends no provider tokens: nothing is counted
and nothing refused.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sstools.agent import explain
from sstools.agent.run.context import RunContext
from sstools.auth.roles import Role
from sstools.auth.tokens import Caller
from sstools.config import Settings
from sstools.errors import SstoolsError
from sstools.llm.usage import Cost
from sstools.storage import llm_usage

_log = structlog.get_logger("sstools.agent")


@dataclass(frozen=True)
class TokenLimits:
    """Tokens a day by role: the role's own when set (None there: no budget), else everyone's."""

    per_user_day: int | None = None
    per_role_day: Mapping[str, int | None] = field(default_factory=dict)

    @classmethod
    def of(cls, settings: Settings) -> TokenLimits:
        per_role = {str(role): limit for role, limit in settings.llm_tokens_per_role_day.items()}
        return cls(settings.llm_tokens_per_user_day, per_role)

    def for_role(self, role: Role) -> int | None:
        if role.value in self.per_role_day:
            return self.per_role_day[role.value]
        return self.per_user_day


class OverBudget(SstoolsError):
    """The person's tokens for today are spent (→ 429 with ``Retry-After``)."""

    def __init__(self, used: int, limit: int, retry_after_s: int) -> None:
        super().__init__(explain.over_token_budget(used, limit, retry_after_s))
        self.used = used
        self.limit = limit
        self.retry_after_s = retry_after_s


def utc_day(moment: datetime) -> date:
    return moment.astimezone(UTC).date()


def seconds_to_next_day(moment: datetime) -> int:
    """Whole seconds until the next UTC midnight, at least 1 (a Retry-After of 0 means now)."""
    midnight = datetime.combine(utc_day(moment) + timedelta(days=1), time(), UTC)
    return max(1, math.ceil((midnight - moment).total_seconds()))


class TokenBudget:
    """Counts each run's model calls against its person, and checks a message against the day."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        limits: TokenLimits,
        clock: Callable[[], datetime],
    ) -> None:
        self._sessions = sessions
        self.limits = limits
        self._clock = clock  # the runtime's: tests move the day with it

    async def check(self, user: Caller) -> None:
        """:class:`OverBudget` when ``user`` has spent their day's tokens; else nothing."""
        limit = self.limits.for_role(user.role)
        if limit is None:
            return
        now = self._clock()
        async with self._sessions() as session:
            used = await llm_usage.used_on(session, user.uid, utc_day(now))
        if used >= limit:
            _log.info("token budget spent", username=user.username, used=used, limit=limit)
            raise OverBudget(used, limit, seconds_to_next_day(now))

    async def spend(self, acting: RunContext, cost: Cost) -> None:
        """Add one model call's ``cost`` to the day of the person the run acts for."""
        if acting.user_id is None:
            return  # nobody acts (a card expired): no model is called for anyone
        now = self._clock()
        try:
            async with self._sessions() as session:
                await llm_usage.add(
                    session,
                    user_uid=acting.user_id,
                    username=acting.username,
                    day=utc_day(now),
                    tokens=cost["tokens"],
                    estimated=cost["estimated"],
                    at=now,
                )
        except Exception as exc:  # a count missed must not cut the turn the person waits on
            _log.warning(
                "token usage not counted",
                username=acting.username,
                run_id=acting.run_id,
                error=type(exc).__name__,
            )
