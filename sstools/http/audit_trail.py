"""The audit log as the routes write it: in the request's session, in the signed-in caller's
name. One call per event (:meth:`AuditTrail.record`): the action, its outcome, and its detail."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.tokens import Principal
from sstools.storage import audit


@dataclass(frozen=True)
class AuditTrail:
    """Where a route's audit rows go (``session``) and whose they are (``caller``)."""

    session: AsyncSession
    caller: Principal

    async def record(self, action: str, outcome: str, /, **detail: Any) -> None:
        """One row: ``env_id`` (when given) as its environment, the rest as its detail."""
        await audit.record(
            self.session, action=action, outcome=outcome, username=self.caller.username, **detail
        )
