"""The audit log: one row per security-relevant event (refusals, changes, tool calls)."""

from __future__ import annotations

from typing import Any

import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.storage.models import AuditEntry

_log = structlog.get_logger("sstools.audit")


async def record(
    session: AsyncSession,
    *,
    action: str,
    outcome: str,
    username: str | None,
    env_id: str | None = None,
    **detail: Any,
) -> None:
    """Append an entry and commit it, so a refusal is logged even when the request fails."""
    session.add(
        AuditEntry(action=action, outcome=outcome, username=username, env_id=env_id, detail=detail)
    )
    await session.commit()
    _log.info(action, outcome=outcome, user=username, env_id=env_id, **detail)
