"""The audit log: one row per security-relevant event (refusals, changes, tool calls).

An entry is written in a short transaction of its own, retried while the database is busy; if
it still cannot be written it goes to the error log instead — auditing never fails a request.
"""

from __future__ import annotations

from typing import Any

import structlog
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncSession
from tenacity import (
    AsyncRetrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
)

from sstools.storage.models import AuditEntry

_log = structlog.get_logger("sstools.audit")
_ATTEMPTS = 4


async def _write(session: AsyncSession, entry: dict[str, Any]) -> None:
    if session.bind is None:  # a session without its own engine: write through it
        session.add(AuditEntry(**entry))
        await session.commit()
        return
    async with AsyncSession(session.bind) as own:
        own.add(AuditEntry(**entry))
        await own.commit()


async def record(
    session: AsyncSession,
    *,
    action: str,
    outcome: str,
    username: str | None,
    env_id: str | None = None,
    **detail: Any,
) -> None:
    """Commit ``session`` (as this always did), then append the entry on the same engine."""
    if session.in_transaction():  # its write lock would block our own transaction on SQLite
        await session.commit()
    entry = {
        "action": action,
        "outcome": outcome,
        "username": username,
        "env_id": env_id,
        "detail": detail,
    }
    try:
        async for attempt in AsyncRetrying(
            retry=retry_if_exception_type(OperationalError),  # "database is locked", a dropped link
            stop=stop_after_attempt(_ATTEMPTS),
            # No jitter: the global random state belongs to whoever else runs in this process.
            wait=wait_exponential(multiplier=0.05, max=1.0),
            reraise=True,
        ):
            with attempt:
                await _write(session, entry)
    except Exception as exc:  # the request goes on; the entry survives in the log
        _log.error(
            "audit_write_failed",
            action=action,
            outcome=outcome,
            user=username,
            env_id=env_id,
            error=f"{type(exc).__name__}: {exc}",
            detail=detail,
        )
        return
    _log.info(action, outcome=outcome, user=username, env_id=env_id, **detail)
