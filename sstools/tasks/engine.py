"""The task engine: start, read, list and cancel tasks; reconcile them with DBOS on start.

Its errors are drawn in ``sstools.tasks.errors``.
"""

from __future__ import annotations

import asyncio
import builtins
import random
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import structlog
from dbos import DBOS, SetWorkflowID
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.environments import EnvironmentRegistry
from sstools.storage import audit
from sstools.storage import tasks as records
from sstools.storage.models import TaskRecord
from sstools.storage.task_history import undone_writes
from sstools.storage.task_lookup import tasks_named
from sstools.storage.tasks import SyncTaskStore
from sstools.tasks import _runtime, scheduled
from sstools.tasks.errors import (
    TaskCancelForbidden,
    TaskConflict,
    TaskFinished,
    TaskNotFound,
    TaskReferenceAmbiguous,
    TooManyTasks,
)
from sstools.tasks.models import Task, TaskKind, TaskStatus
from sstools.tasks.workflow import REGISTERED, workflow_name
from sstools.texts import tasks as texts

_log = structlog.get_logger(__name__)

# DBOS statuses of a workflow it will still run (or is running).
_ALIVE = frozenset({"PENDING", "ENQUEUED"})
_CLAIM_ATTEMPTS = 5
# Tasks of these kinds only an admin may cancel: an admin's operation on a whole environment.
ADMIN_CANCELS = frozenset({TaskKind.backup, TaskKind.restore})


def _check_may_cancel(task: Task, user: str, role: Role, *, same_account: bool) -> None:
    """``same_account``: the account that started it is the caller's (by its never-reused id:
    an account removed and added again under the same name is not)."""
    if role is Role.admin:
        return
    if task.kind in ADMIN_CANCELS:
        kind = texts.KINDS.get(task.kind.value, task.kind.value)
        message = texts.CANCEL_ADMIN_ONLY.format(task=task.id, kind=kind)
        raise TaskCancelForbidden(task, message)
    if task.started_by != user:
        message = texts.CANCEL_NOT_YOURS.format(task=task.id, owner=task.started_by)
        raise TaskCancelForbidden(task, message)
    if not same_account:
        message = texts.CANCEL_NAMESAKE.format(task=task.id, owner=task.started_by)
        raise TaskCancelForbidden(task, message)


def system_database(settings: Settings) -> str:
    """DBOS's system database: ``tasks.sqlite`` beside a SQLite database, else the same one."""
    if settings.tasks_database_url:
        return settings.tasks_database_url
    url = make_url(settings.database_url)
    if url.get_backend_name() == "sqlite":
        folder = Path(url.database or ".sstools/sstools.db").parent
        return f"sqlite:///{folder / 'tasks.sqlite'}"
    return url.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)


class TaskEngine:
    def __init__(
        self,
        settings: Settings,
        sessions: async_sessionmaker[AsyncSession],
        environments: EnvironmentRegistry,
    ) -> None:
        self.settings = settings
        self.sessions = sessions
        self.environments = environments
        self._store: SyncTaskStore | None = None
        self._shared = make_url(system_database(settings)).get_backend_name() == "postgresql"
        self._launching = asyncio.Lock()

    # -- DBOS ---------------------------------------------------------------------------------

    def _context(self) -> _runtime.TaskContext:
        if self._store is None:
            self._store = SyncTaskStore(self.settings.database_url)
        return _runtime.TaskContext(
            settings=self.settings,
            environments=self.environments,
            store=self._store,
            system_database_url=system_database(self.settings),
            system_schema=self.settings.tasks_schema,
        )

    async def _launch(self) -> None:
        # _runtime marks us the owner before DBOS.launch() returns: a start racing the first one
        # would see that and start its workflow on a system database not yet set up.
        async with self._launching:
            if not _runtime.owns(self):
                await asyncio.to_thread(_runtime.acquire, self, self._context())
                await self._apply_schedules()

    async def start_schedules(self) -> None:
        """Launch DBOS now if a scheduled task has a cron and it is not running here yet.

        On PostgreSQL DBOS is launched at start anyway; on SQLite lazily, so whatever reads a
        scheduled task's results calls this, and the schedule runs from then on.
        """
        if scheduled.wanted(self.settings) and not _runtime.owns(self):
            await self._launch()

    async def _apply_schedules(self) -> None:
        """The scheduled tasks' crons, applied at each launch (a bad one is logged, not fatal)."""
        try:
            applied = await asyncio.to_thread(scheduled.apply_schedules, self.settings)
        except Exception as exc:  # a bad cron must not stop the tasks people start
            _log.warning("schedules_not_applied", error=str(exc))
            return
        if applied:
            _log.info("schedules_applied", schedules=applied)

    async def recover(self) -> builtins.list[str]:
        """On app start: let DBOS resume what it can; fail the rest. The ids failed."""
        async with self.sessions() as session:
            unfinished = await records.unfinished_tasks(session)
            if not self._shared:  # one process: a cancelled task not running here has stopped
                await records.release_finished_claims(session, running=_runtime.active())
        if not unfinished and not self._shared:  # with several workers: watch for dead ones
            return []
        began = time.perf_counter()
        await self._launch()
        failed = []
        for record in unfinished:
            status = await asyncio.to_thread(DBOS.get_workflow_status, record.id)
            if status is not None and status.status in _ALIVE and record.workflow in REGISTERED:
                continue
            if status is not None and status.status in _ALIVE:  # this build lacks its code
                await asyncio.to_thread(DBOS.cancel_workflow, record.id)
            if await self._fail_interrupted(record):
                failed.append(record.id)
        _log.info(
            "tasks_recovered",
            resumed=len(unfinished) - len(failed),
            failed=failed,
            seconds=time.perf_counter() - began,
        )
        return failed

    async def _fail_interrupted(self, record: TaskRecord) -> bool:
        if record.workflow not in REGISTERED:
            reason = texts.WORKFLOW_GONE
        elif record.progress:
            reason = texts.INTERRUPTED.format(**record.progress)
        else:
            reason = texts.INTERRUPTED_BEFORE_START
        async with self.sessions() as session:
            ended = await records.finish_task(session, record.id, TaskStatus.failed, error=reason)
            if ended:
                await audit.record(
                    session,
                    action="task_finished",
                    outcome=TaskStatus.failed,
                    username=record.started_by,
                    env_id=record.env_id,
                    task_id=record.id,
                    error=reason,
                )
        return ended

    async def aclose(self) -> None:
        if _runtime.owns(self):
            await asyncio.to_thread(_runtime.release, self)
        if self._store is not None:
            self._store.dispose()

    # -- tasks --------------------------------------------------------------------------------

    async def running_on(self, env_id: str, object_keys: Sequence[str]) -> Task | None:
        """The unfinished task that writes one of these objects in ``env_id``, if any."""
        async with self.sessions() as session:
            holder = await records.claim_holder(session, env_id, object_keys)
            running = await records.get_task(session, holder) if holder else None
        return Task.model_validate(running) if running is not None else None

    async def start(
        self,
        kind: TaskKind,
        *,
        env_id: str,
        source: str | None,
        objects: Sequence[str],
        object_keys: Sequence[str],
        started_by: str,
        workflow: Callable[..., Any],
        args: Sequence[Any] = (),
        approved_by: str | None = None,
    ) -> Task:
        """Record the task, claim its objects in ``env_id`` and one of ``started_by``'s slots,
        start its workflow in DBOS. ``approved_by``: the second person a stage needed.

        Raises:
            TaskConflict: another unfinished task writes one of the objects.
            TooManyTasks: every slot of ``started_by`` is held by an unfinished task.
        """
        name = workflow_name(workflow)
        if REGISTERED.get(name) is not workflow:
            raise ValueError(f"{name} is not declared with @task_workflow")

        async def audited(session: AsyncSession, outcome: str, **detail: Any) -> None:
            """The start's audit row: who, where, which kind, how it went."""
            await audit.record(
                session,
                action="task_started",
                outcome=outcome,
                username=started_by,
                env_id=env_id,
                kind=kind.value,
                **detail,
            )

        task_id = uuid.uuid4().hex
        limit = self.settings.tasks_per_user
        # A round that fails saw a holder end or a concurrent start of the same user take the
        # slot it chose; each of those can happen at most about ``limit`` times in a row.
        for _ in range(_CLAIM_ATTEMPTS + limit):
            async with self.sessions() as session:
                free = await records.free_user_slots(session, started_by, limit)
                if not free:
                    await audited(session, "throttled", limit=limit)
                    raise TooManyTasks(limit)
                record = TaskRecord(
                    id=task_id,
                    kind=kind.value,
                    workflow=name,
                    objects=list(objects),
                    object_keys=list(dict.fromkeys(object_keys)),
                    env_id=env_id,
                    source=source,
                    started_by=started_by,
                    # Who started it, by account: the caller was just signed in as the account
                    # of this name (none for the drift watch).
                    started_by_id=await records.account_of(session, started_by),
                    approved_by=approved_by,
                    status=TaskStatus.queued.value,
                )
                # A random free slot: concurrent starts of one user rarely pick the same one.
                slot = random.choice(free)  # noqa: S311 - spreads contention, guards nothing
                holder = await records.insert_task(session, record, object_keys, slot=slot)
                if holder is None:
                    break
                running = await records.get_task(session, holder) if holder else None
                if running is not None:
                    await audited(session, "conflict", task_id=running.id)
                    raise TaskConflict(Task.model_validate(running))
        else:  # each holder finished just as we looked: vanishingly rare, safe to refuse
            raise RuntimeError(f"could not claim {list(object_keys)} in {env_id}: retry")
        try:
            await self._launch()
            await asyncio.to_thread(self._start_workflow, workflow, task_id, tuple(args))
        except Exception as exc:
            async with self.sessions() as session:
                await records.finish_task(
                    session, task_id, TaskStatus.failed, error=texts.START_FAILED.format(error=exc)
                )
            raise
        async with self.sessions() as session:
            await audited(session, "ok", task_id=task_id, objects=list(objects), source=source)
        return await self.get(task_id)

    @staticmethod
    def _start_workflow(workflow: Callable[..., Any], task_id: str, args: tuple[Any, ...]) -> None:
        with SetWorkflowID(task_id):
            DBOS.start_workflow(workflow, task_id, *args)

    async def get(self, task_id: str) -> Task:
        """The task with this id, or with the only id that starts so (people quote 8 digits)."""
        async with self.sessions() as session:
            found = await tasks_named(session, task_id)
            if not found:
                raise TaskNotFound(task_id)
            if len(found) > 1:
                raise TaskReferenceAmbiguous(task_id)
            return (await _shown(session, found))[0]

    async def list(
        self,
        *,
        env_id: str | None = None,
        status: TaskStatus | None = None,
        kind: TaskKind | None = None,
        started_by: str | None = None,
        object_key: str | None = None,
        limit: int = 50,
    ) -> builtins.list[Task]:
        async with self.sessions() as session:
            found = await records.list_tasks(
                session,
                env_id=env_id,
                status=None if status is None else status.value,
                kind=None if kind is None else kind.value,
                started_by=started_by,
                object_key=object_key,
                limit=limit,
            )
            return await _shown(session, found)

    async def cancel(self, task_id: str, user: str, *, role: Role) -> Task:
        """Cancel an unfinished task: its next step does not run.

        Its claims stay until its workflow has actually stopped (the step under way ends), so
        no other task writes the same objects meanwhile. Backups and restores: admins only;
        another task: the person who started it, or an admin.
        """
        task = await self.get(task_id)
        task_id = task.id  # a reference may be its first digits
        if task.status.finished:
            raise TaskFinished(task)
        async with self.sessions() as session:
            record = await records.get_task(session, task_id)
            same = record is not None and record.started_by_id == await records.account_of(
                session, user
            )
        try:
            _check_may_cancel(task, user, role, same_account=same)
        except TaskCancelForbidden:
            await self._audit_cancel(task, user, "forbidden")
            raise
        # The record first: the workflow, stopped, must find it ended and leave it so.
        async with self.sessions() as session:
            ended = await records.cancel_task(
                session, task_id, error=texts.CANCELLED_BY.format(user=user)
            )
        if not ended:
            raise TaskFinished(await self.get(task_id))
        await self._launch()
        await asyncio.to_thread(DBOS.cancel_workflow, task_id)
        # Not begun, or already out of its step: nothing will release the claims but this.
        await asyncio.to_thread(_runtime.release_stopped_claims, [task_id])
        await self._audit_cancel(task, user, "ok")
        return await self.get(task_id)

    async def _audit_cancel(self, task: Task, user: str, outcome: str) -> None:
        async with self.sessions() as session:
            await audit.record(
                session,
                action="task_cancelled",
                outcome=outcome,
                username=user,
                env_id=task.env_id,
                task_id=task.id,
                kind=task.kind.value,
            )


async def _shown(session: AsyncSession, found: Sequence[TaskRecord]) -> list[Task]:
    """The records as the API shows them, each deploy a rollback undid saying by which."""
    undone = await undone_writes(session, found)
    return [
        Task.model_validate(record).model_copy(update={"undone_by": undone.get(record.id)})
        for record in found
    ]
