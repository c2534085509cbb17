"""«Одобрять похожие до конца сеанса»: what a person approved ahead in a conversation, for as
long as that approval lasts.

It lasts while the sign-in it was given in does — the account's token version then, which a
sign-out everywhere or a new password bumps — and at most ``SSTOOLS_APPROVE_SIMILAR_TTL_S``
from the approval; and only while one person approves a dev write (``SSTOOLS_APPROVALS_DEV=1``).
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sstools.auth.tokens import Caller
from sstools.clock import Clock
from sstools.storage import confirmations


class SimilarApprovals:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        allowed: bool,
        ttl_s: float,
        clock: Clock,
    ) -> None:
        self._sessions = sessions
        self._allowed = allowed
        self._ttl = timedelta(seconds=ttl_s)
        self._clock = clock  # the runtime's, which tests move

    async def covered(self, conversation_id: str, user: Caller) -> frozenset[tuple[str, str, str]]:
        """(tool, environment, kind) ``user`` approved ahead in the conversation, still lasting."""
        if not self._allowed:  # dev needs two people now: nothing approved ahead
            return frozenset()
        async with self._sessions() as session:
            return await confirmations.approved_similar(
                session,
                conversation_id,
                user.uid,
                token_version=user.token_version,
                since=self._clock() - self._ttl,
            )
