"""Whether a deploy or migration has been undone: one rule for the web's «Откатить…» and the
agent's choice of which deploy a rollback means."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.storage.models import TaskRecord

# The task kinds that write dashboards; a failed or cancelled one wrote nothing that counts.
WRITE_KINDS = ("deploy", "migration", "rollback")
UNDOABLE_KINDS = ("deploy", "migration")
_WROTE_NOTHING = ("failed", "cancelled")


class TaskLike(Protocol):
    """A task record or a task as ``GET /api/tasks`` lists it."""

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def env_id(self) -> str | None: ...
    @property
    def objects(self) -> Sequence[str] | None: ...


def undone_by(newest_first: Sequence[TaskLike], write: TaskLike) -> str | None:
    """The rollback that undid ``write``: the next write of the same objects in the same
    environment after it, when that is a rollback (that did not fail). None: nothing undid it
    (a rollback of a newer deploy brings this one's result back, so this one stays undoable)."""
    newer = []
    for task in newest_first:
        if task.id == write.id:
            break
        newer.append(task)
    for task in reversed(newer):  # the first write after it
        same = task.env_id == write.env_id and list(task.objects or []) == list(write.objects or [])
        if same and task.kind in WRITE_KINDS and task.status not in _WROTE_NOTHING:
            return task.id if task.kind == "rollback" else None
    return None


async def undone_writes(session: AsyncSession, tasks: Sequence[TaskRecord]) -> dict[str, str]:
    """Of ``tasks``, the finished deploys and migrations a rollback undid: id → the rollback's
    id. One query: the writes in their environments since the oldest of them."""
    candidates = [
        task for task in tasks if task.kind in UNDOABLE_KINDS and task.status == "succeeded"
    ]
    if not candidates:
        return {}
    oldest = min(task.created_at for task in candidates)
    query = (
        select(TaskRecord)
        .where(
            TaskRecord.env_id.in_({task.env_id for task in candidates}),
            TaskRecord.kind.in_(WRITE_KINDS),
            TaskRecord.created_at >= oldest,
        )
        .order_by(TaskRecord.created_at.desc())
    )
    later = list((await session.scalars(query)).all())
    found = {task.id: undone_by(later, task) for task in candidates}
    return {task_id: rollback for task_id, rollback in found.items() if rollback is not None}
