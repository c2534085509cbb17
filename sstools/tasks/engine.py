"""The task engine: start, read, list and cancel tasks; reconcile them with DBOS on start.

Errors, drawn as a tree::

    TaskError
    ├── TaskNotFound      → 404
    ├── TaskConflict      → 409, names the task that holds the object
    └── TaskFinished      → 409, a finished task cannot be cancelled
"""

from __future__ import annotations

import asyncio
import builtins
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import structlog
from dbos import DBOS, SetWorkflowID
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sstools.config import Settings
from sstools.environments import EnvironmentRegistry
from sstools.storage import audit
from sstools.storage import tasks as records
from sstools.storage.models import TaskRecord
from sstools.storage.tasks import SyncTaskStore
from sstools.tasks import _runtime
from sstools.tasks.models import Task, TaskKind, TaskStatus
from sstools.tasks.workflow import (
    INTERRUPTED,
    INTERRUPTED_BEFORE_START,
    REGISTERED,
    WORKFLOW_GONE,
    workflow_name,
)

_log = structlog.get_logger(__name__)

# DBOS statuses of a workflow it will still run (or is running).
_ALIVE = frozenset({"PENDING", "ENQUEUED"})
_CLAIM_ATTEMPTS = 5


class TaskError(Exception):
    pass


class TaskNotFound(TaskError):
    def __init__(self, task_id: str) -> None:
        super().__init__(f"task {task_id!r} not found")


class TaskConflict(TaskError):
    """Another unfinished task writes one of the same objects in the same environment."""

    def __init__(self, running: Task) -> None:
        objects = ", ".join(f"«{name}»" for name in running.objects) or "те же объекты"
        super().__init__(
            f"в окружении {running.env_id} уже выполняется задача {running.id} "
            f"({running.kind.value}, запустил {running.started_by}), которая меняет {objects}; "
            "дождитесь её окончания или отмените её"
        )
        self.running = running


class TaskFinished(TaskError):
    def __init__(self, task: Task) -> None:
        super().__init__(f"задача {task.id} уже завершена (статус {task.status.value})")
        self.task = task


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
        if not _runtime.owns(self):
            await asyncio.to_thread(_runtime.acquire, self, self._context())

    async def recover(self) -> builtins.list[str]:
        """On app start: let DBOS resume what it can; fail the rest. The ids failed."""
        async with self.sessions() as session:
            unfinished = await records.unfinished_tasks(session)
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
            reason = WORKFLOW_GONE
        elif record.progress:
            reason = INTERRUPTED.format(**record.progress)
        else:
            reason = INTERRUPTED_BEFORE_START
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
    ) -> Task:
        """Record the task, claim its objects in ``env_id``, start its workflow in DBOS."""
        name = workflow_name(workflow)
        if REGISTERED.get(name) is not workflow:
            raise ValueError(f"{name} is not declared with @task_workflow")
        task_id = uuid.uuid4().hex
        for _ in range(_CLAIM_ATTEMPTS):
            async with self.sessions() as session:
                record = TaskRecord(
                    id=task_id,
                    kind=kind.value,
                    workflow=name,
                    objects=list(objects),
                    env_id=env_id,
                    source=source,
                    started_by=started_by,
                    status=TaskStatus.queued.value,
                )
                holder = await records.insert_task(session, record, object_keys)
                if holder is None:
                    break
                running = await records.get_task(session, holder) if holder else None
                if running is not None:
                    await audit.record(
                        session,
                        action="task_started",
                        outcome="conflict",
                        username=started_by,
                        env_id=env_id,
                        task_id=running.id,
                        kind=kind.value,
                    )
                    raise TaskConflict(Task.model_validate(running))
        else:  # each holder finished just as we looked: vanishingly rare, safe to refuse
            raise RuntimeError(f"could not claim {list(object_keys)} in {env_id}: retry")
        try:
            await self._launch()
            await asyncio.to_thread(self._start_workflow, workflow, task_id, tuple(args))
        except Exception as exc:
            async with self.sessions() as session:
                await records.finish_task(
                    session, task_id, TaskStatus.failed, error=f"не удалось запустить: {exc}"
                )
            raise
        async with self.sessions() as session:
            await audit.record(
                session,
                action="task_started",
                outcome="ok",
                username=started_by,
                env_id=env_id,
                task_id=task_id,
                kind=kind.value,
                objects=list(objects),
                source=source,
            )
        return await self.get(task_id)

    @staticmethod
    def _start_workflow(workflow: Callable[..., Any], task_id: str, args: tuple[Any, ...]) -> None:
        with SetWorkflowID(task_id):
            DBOS.start_workflow(workflow, task_id, *args)

    async def get(self, task_id: str) -> Task:
        async with self.sessions() as session:
            record = await records.get_task(session, task_id)
        if record is None:
            raise TaskNotFound(task_id)
        return Task.model_validate(record)

    async def list(
        self, *, env_id: str | None = None, status: TaskStatus | None = None, limit: int = 50
    ) -> builtins.list[Task]:
        async with self.sessions() as session:
            found = await records.list_tasks(
                session, env_id=env_id, status=None if status is None else status.value, limit=limit
            )
        return [Task.model_validate(record) for record in found]

    async def cancel(self, task_id: str, user: str) -> Task:
        """Cancel an unfinished task: its next step does not run; its claims are released."""
        task = await self.get(task_id)
        if task.status.finished:
            raise TaskFinished(task)
        # The record first: the workflow, stopped, must find it ended and leave it so.
        async with self.sessions() as session:
            ended = await records.finish_task(
                session, task_id, TaskStatus.cancelled, error=f"отменена пользователем {user}"
            )
        if not ended:
            raise TaskFinished(await self.get(task_id))
        await self._launch()
        await asyncio.to_thread(DBOS.cancel_workflow, task_id)
        async with self.sessions() as session:
            await audit.record(
                session,
                action="task_cancelled",
                outcome="ok",
                username=user,
                env_id=task.env_id,
                task_id=task_id,
                kind=task.kind.value,
            )
        return await self.get(task_id)
