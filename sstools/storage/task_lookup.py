"""A task as people name it: by its id, or by the start of it (they quote its first 8 digits)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from sstools.storage.models import TaskRecord
from sstools.storage.tasks import get_task, tasks_starting_with

TASK_ID_LENGTH = 32  # uuid4().hex


async def tasks_named(session: AsyncSession, reference: str) -> list[TaskRecord]:
    """The task with this id, or at most two whose id starts so (two: the start is ambiguous)."""
    if len(reference) == TASK_ID_LENGTH:
        record = await get_task(session, reference)
        return [] if record is None else [record]
    return await tasks_starting_with(session, reference)
