"""Task records and claims: async for the API, sync for workflow code (it runs in DBOS threads).

A claim is a row ``(env_id, object_key) → task_id`` whose primary key admits one holder, so of
two concurrent starts on the same object exactly one inserts it; the other gets the holder's id.
Every status change is one conditional ``UPDATE``: a finished record is never written back,
except that a cancelled one receives, once, the partial report its workflow leaves as it stops.

A cancelled task keeps its claims until its workflow has actually stopped (the step under way
still runs): the workflow releases them as it ends, and :func:`release_finished_claims` and
:meth:`SyncTaskStore.finished_with_claims` find the claims of a workflow that ended without
doing so (killed after the cancel).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import (
    Delete,
    Engine,
    Select,
    String,
    Update,
    cast,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.storage.db import create_blocking_engine
from sstools.storage.models import AuditEntry, TaskClaim, TaskRecord, User, utcnow

UNFINISHED = ("queued", "running")
# Each unfinished task of a user holds one of the user's numbered slots: a claim in this
# pseudo-environment (no environment id starts with "*"), released with the task's other claims,
# so of two concurrent starts only one can take a user's last free slot.
USER_SLOTS_ENV = "*users"


def _finish(task_id: str, status: str, result: Any, error: str | None) -> Update:
    return (
        update(TaskRecord)
        .where(TaskRecord.id == task_id, TaskRecord.status.in_(UNFINISHED))
        .values(status=status, result=result, error=error, finished_at=utcnow())
    )


def _release(task_id: str) -> Delete:
    return delete(TaskClaim).where(TaskClaim.task_id == task_id)


def user_slot(username: str, number: int) -> str:
    return f"{number}:{username}"


async def free_user_slots(session: AsyncSession, username: str, limit: int) -> list[str]:
    """The slots of ``username`` that no unfinished task holds, of ``limit`` in all."""
    slots = [user_slot(username, number) for number in range(limit)]
    held = set(
        await session.scalars(
            select(TaskClaim.object_key).where(
                TaskClaim.env_id == USER_SLOTS_ENV, TaskClaim.object_key.in_(slots)
            )
        )
    )
    return [slot for slot in slots if slot not in held]


def _finished_with_claims() -> Select[Any]:
    return (
        select(TaskClaim.task_id)
        .join(TaskRecord, TaskRecord.id == TaskClaim.task_id)
        .where(TaskRecord.status.not_in(UNFINISHED))
        .distinct()
    )


async def insert_task(
    session: AsyncSession,
    record: TaskRecord,
    object_keys: Sequence[str],
    *,
    slot: str | None = None,
) -> str | None:
    """Insert the queued record with its claims (and its user's slot); the holder's task id if
    an object is taken, "" if a claim was taken by a task that has ended since, or the slot."""
    session.add(record)
    for key in dict.fromkeys(object_keys):
        session.add(TaskClaim(env_id=record.env_id, object_key=key, task_id=record.id))
    if slot is not None:
        session.add(TaskClaim(env_id=USER_SLOTS_ENV, object_key=slot, task_id=record.id))
    try:
        await session.commit()
    except IntegrityError:
        await session.rollback()
        holder = await claim_holder(session, record.env_id, object_keys)
        return holder or ""  # "": the holder finished meanwhile, or the slot went; try again
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


async def account_of(session: AsyncSession, username: str) -> str | None:
    """The uid of the account that has ``username`` now (None: no such account)."""
    return await session.scalar(select(User.uid).where(User.username == username))


async def tasks_starting_with(session: AsyncSession, prefix: str) -> list[TaskRecord]:
    """At most two tasks whose id starts with ``prefix`` (two: the prefix is ambiguous)."""
    query = select(TaskRecord).where(TaskRecord.id.startswith(prefix, autoescape=True)).limit(2)
    return list((await session.scalars(query)).all())


async def list_tasks(
    session: AsyncSession,
    *,
    env_id: str | None,
    status: str | None,
    limit: int,
    kind: str | None = None,
    started_by: str | None = None,
    object_key: str | None = None,
) -> list[TaskRecord]:
    """Newest first; ``object_key``: only the tasks that claimed it (as :func:`tasks_writing`)."""
    query = select(TaskRecord).order_by(TaskRecord.created_at.desc()).limit(limit)
    if object_key is not None:
        keys = cast(TaskRecord.object_keys, String)
        query = query.where(keys.contains(f'"{object_key}"', autoescape=True))
    if env_id is not None:
        query = query.where(TaskRecord.env_id == env_id)
    if status is not None:
        query = query.where(TaskRecord.status == status)
    if kind is not None:
        query = query.where(TaskRecord.kind == kind)
    if started_by is not None:
        query = query.where(TaskRecord.started_by == started_by)
    found = (await session.scalars(query)).all()
    return [one for one in found if object_key is None or object_key in (one.object_keys or [])]


async def tasks_writing(
    session: AsyncSession, object_key: str, *, kinds: Sequence[str], limit: int = 50
) -> list[TaskRecord]:
    """The newest tasks of these kinds that wrote ``object_key`` (in any environment).

    The keys are a JSON list: the text match narrows portably (SQLite and PostgreSQL alike), the
    exact membership test after it decides, so a key that merely contains another never counts.
    """
    query = (
        select(TaskRecord)
        .where(
            TaskRecord.kind.in_(list(kinds)),
            cast(TaskRecord.object_keys, String).contains(f'"{object_key}"', autoescape=True),
        )
        .order_by(TaskRecord.created_at.desc())
        .limit(limit)
    )
    found = (await session.scalars(query)).all()
    return [record for record in found if object_key in (record.object_keys or [])]


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


async def cancel_task(session: AsyncSession, task_id: str, *, error: str) -> bool:
    """Mark an unfinished task cancelled, keeping its claims; False if it had already ended."""
    changed = await session.execute(
        update(TaskRecord)
        .where(TaskRecord.id == task_id, TaskRecord.status.in_(UNFINISHED))
        .values(status="cancelled", error=error, finished_at=utcnow())
    )
    await session.commit()
    return bool(changed.rowcount)  # type: ignore[attr-defined]


async def release_finished_claims(
    session: AsyncSession, *, running: Collection[str] = ()
) -> list[str]:
    """Release the claims finished tasks still hold, but those whose workflow is ``running``."""
    found = (await session.scalars(_finished_with_claims())).all()
    holders = [task_id for task_id in found if task_id not in running]
    if holders:
        await session.execute(delete(TaskClaim).where(TaskClaim.task_id.in_(holders)))
        await session.commit()
    return holders


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

    def cancelled(self, task_id: str, result: dict[str, Any] | None) -> bool:
        """The workflow of a cancelled task stopped: keep its partial report, release claims.

        The record is usually cancelled already (by the user, before the workflow noticed), so
        ``result`` is added to it if it has none; an unfinished one is ended ``cancelled``.
        """
        if self.finish(task_id, "cancelled", result=result):
            return True
        if result is not None:
            with self.engine.begin() as connection:
                row = connection.execute(
                    select(TaskRecord.status, TaskRecord.result).where(TaskRecord.id == task_id)
                ).one_or_none()
                if row is not None and row.status == "cancelled" and not row.result:
                    connection.execute(
                        update(TaskRecord)
                        .where(TaskRecord.id == task_id, TaskRecord.status == "cancelled")
                        .values(result=result)
                    )
        return False

    def is_cancelled(self, task_id: str) -> bool:
        with self.engine.connect() as connection:
            status = connection.scalar(select(TaskRecord.status).where(TaskRecord.id == task_id))
        return status == "cancelled"

    def finished_with_claims(self) -> list[str]:
        """Ids of the finished (cancelled) tasks that still hold claims."""
        with self.engine.connect() as connection:
            return list(connection.execute(_finished_with_claims()).scalars())

    def release(self, task_id: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(_release(task_id))

    def dispose(self) -> None:
        self.engine.dispose()
