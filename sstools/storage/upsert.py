"""One row per key, written by whoever comes first: an UPDATE of the row, else an INSERT of it.

Portable across SQLite and PostgreSQL without dialect-specific upserts: an INSERT that lost
the race to another writer's (an IntegrityError on the key) is rolled back and becomes the
UPDATE, which now finds the row.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.storage.models import Base


async def update_or_insert(session: AsyncSession, change: Update, row: Base) -> None:
    """Run ``change`` (an UPDATE of one row by its key); when it matched none, insert ``row``;
    commit either way."""
    for _ in range(2):
        changed: Any = await session.execute(change)
        if changed.rowcount == 1:
            await session.commit()
            return
        session.add(row)
        try:
            await session.commit()
            return
        except IntegrityError:
            await session.rollback()
    # Twice no row and twice a clash on the key: something else than a race is wrong.
    raise RuntimeError(f"{row.__tablename__}: the row neither updated nor inserted")
