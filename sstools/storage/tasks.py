"""Task records and claims: async for the API, sync for workflow code (it runs in DBOS threads).

A claim is a row ``(env_id, object_key) → task_id`` whose primary key admits one holder, so of
two concurrent starts on the same object exactly one inserts it; the other gets the holder's id.
Every status change is one conditional ``UPDATE``: a finished record is never written back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Delete, Engine, Update, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.storage.db import create_blocking_engine
from sstools.storage.models import AuditEntry, TaskClaim, TaskRecord, utcnow

UNFINISHED = ("queued", "running")


def _finish(task_id: str, status: str, result: Any, error: str | None) -> Update:
    return (
        update(TaskRecord)
        .where(TaskRecord.id == task_id, TaskRecord.status.in_(UNFINISHED))
        .values(status=status, result=result, error=error, finished_at=utcnow())
    )


def _release(task_id: str) -> Delete:
    return delete(TaskClaim).where(TaskClaim.task_id == task_id)


async def insert_task(
    session: AsyncSession, record: TaskRecord, object_keys: Sequence[str]
) -> str | None:
    """Insert the queued record with its claims; the holder's task id if a claim is taken."""
    session.add(record)
    for key in dict.fromkeys(object_keys):
        session.add(TaskClaim(env_id=record.env_id, object_key=key, task_id=record.id))
    try:
        await session.commit()
    except IntegrityError:
        await session.rollback()
        holder = await claim_holder(session, record.env_id, object_keys)
        return holder or ""  # "" : the holder finished meanwhile; the caller may try again
    return None


async def claim_holder(
    session: AsyncSession, env_id: str, object_keys: Sequence[str]
) -> str | None:
    """The id of a task that holds one of these objects in ``env_id``, if any."""
    return await session.scalar(
        select(TaskClaim.task_id).where(
            TaskClaim.env_id == env_id, TaskClaim.object_key.in_(list(object_keys))
        )
    )


async def get_task(session: AsyncSession, task_id: str) -> TaskRecord | None:
    return await session.get(TaskRecord, task_id, populate_existing=True)


async def list_tasks(
    session: AsyncSession, *, env_id: str | None, status: str | None, limit: int
) -> list[TaskRecord]:
    query = select(TaskRecord).order_by(TaskRecord.created_at.desc()).limit(limit)
    if env_id is not None:
        query = query.where(TaskRecord.env_id == env_id)
    if status is not None:
        query = query.where(TaskRecord.status == status)
    return list((await session.scalars(query)).all())


async def unfinished_tasks(session: AsyncSession) -> list[TaskRecord]:
    query = select(TaskRecord).where(TaskRecord.status.in_(UNFINISHED))
    return list((await session.scalars(query)).all())


async def finish_task(
    session: AsyncSession,
    task_id: str,
    status: str,
    *,
    result: dict[str, Any] | None = None,
    error: str | None = None,
) -> bool:
    """End an unfinished task and release its claims; False if it had already ended."""
    changed = await session.execute(_finish(task_id, status, result, error))
    await session.execute(_release(task_id))
    await session.commit()
    return bool(changed.rowcount)  # type: ignore[attr-defined]


class SyncTaskStore:
    """The same table from workflow threads, which must not touch the app's event loop."""

    def __init__(self, database_url: str) -> None:
        self.engine: Engine = create_blocking_engine(database_url)

    def running(self, task_id: str) -> None:
        """queued → running, once: a replay after recovery keeps the first start time."""
        with self.engine.begin() as connection:
            connection.execute(
                update(TaskRecord)
                .where(TaskRecord.id == task_id, TaskRecord.status == "queued")
                .values(status="running", started_at=utcnow())
            )

    def progress(self, task_id: str, step: int, total: int, name: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(
                update(TaskRecord)
                .where(TaskRecord.id == task_id, TaskRecord.status.in_(UNFINISHED))
                .values(progress={"step": step, "total": total, "name": name})
            )

    def finish(
        self,
        task_id: str,
        status: str,
        *,
        result: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> bool:
        """End the task, release its claims and audit it, in one transaction."""
        with self.engine.begin() as connection:
            changed = connection.execute(_finish(task_id, status, result, error)).rowcount
            connection.execute(_release(task_id))
            if changed:
                owner = connection.execute(
                    select(TaskRecord.started_by, TaskRecord.env_id, TaskRecord.kind).where(
                        TaskRecord.id == task_id
                    )
                ).one()
                connection.execute(
                    insert(AuditEntry).values(
                        at=utcnow(),
                        action="task_finished",
                        outcome=status,
                        username=owner.started_by,
                        env_id=owner.env_id,
                        detail={"task_id": task_id, "kind": owner.kind, "error": error},
                    )
                )
        return bool(changed)

    def dispose(self) -> None:
        self.engine.dispose()
