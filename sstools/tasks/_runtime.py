"""The one DBOS of this process: launched lazily for the app that needs it, handed over safely.

DBOS is a process-wide singleton bound to one system database. Several apps may live in one
process (tests, a browser server): the first that starts a task (or finds unfinished ones on
start) launches it; another app with another system database may take it over only while no
workflow of ours is running in it.

On PostgreSQL several workers share the system database. Each launch gets an executor id of its
own and holds an advisory lock named after it (its lease) for as long as it runs; DBOS starts a
workflow on the executor that started it. A worker that finds pending workflows of an executor
whose lease is free knows that executor died, and has DBOS re-enqueue them: DBOS's queue hands
each to exactly one live worker. On SQLite there is one process, executor ``local``, as before.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field

import psycopg
import structlog
from dbos import DBOS

from sstools.config import Settings
from sstools.environments import EnvironmentRegistry
from sstools.errors import SstoolsError
from sstools.storage.advisory import advisory_key, is_postgres, libpq_url
from sstools.storage.db import DBOS_POOL_SIZE
from sstools.storage.tasks import SyncTaskStore
from sstools.tasks.serializer import JsonSerializer, refuse_pickles

_log = structlog.get_logger(__name__)

APP_NAME = "sstools"
# Recovery only resumes workflows of the same application version: pinned, so an upgrade of
# sstools resumes what the previous build left. Bump only with a workflow change that cannot
# replay older checkpoints (and then unfinished tasks of the old version end `failed`).
APPLICATION_VERSION = "sstools-1"
# How often a worker on a shared system database looks for dead executors' workflows (seconds).
DEAD_EXECUTOR_SWEEP_S = 10.0


class TasksBusy(SstoolsError, RuntimeError):
    """DBOS runs workflows for another system database in this process."""


@dataclass(frozen=True)
class TaskContext:
    """What workflow code may use: it runs outside the app's event loop and request scope."""

    settings: Settings
    environments: EnvironmentRegistry
    store: SyncTaskStore
    system_database_url: str
    system_schema: str
    # A new value per launch: a step begun under an earlier launch was cut short by a restart.
    launch_id: str = field(default_factory=lambda: uuid.uuid4().hex)


_lock = threading.RLock()
_context: TaskContext | None = None
_owner: object | None = None
_lease: _Lease | None = None
_active: set[str] = set()
launch_seconds: list[float] = []  # measured launch durations, newest last


def context() -> TaskContext:
    """The context of the app whose DBOS runs this process's workflows."""
    if _context is None:
        raise RuntimeError("no task engine is running in this process")
    return _context


def _key(ctx: TaskContext) -> tuple[str, str]:
    return (ctx.system_database_url, ctx.system_schema)


def acquire(owner: object, ctx: TaskContext) -> None:
    """Make DBOS run for ``owner`` on ``ctx``'s system database, launching it if needed."""
    global _context, _owner
    with _lock:
        if _context is not None and _key(_context) == _key(ctx):
            _owner = owner
            _context = TaskContext(**{**ctx.__dict__, "launch_id": _context.launch_id})
            return
        if _context is not None:
            if _active:
                raise TasksBusy(
                    f"DBOS in this process runs {len(_active)} workflow(s) for "
                    f"{_context.system_database_url}; cannot switch to {ctx.system_database_url}"
                )
            _shutdown()
        began = time.perf_counter()
        global _lease
        if is_postgres(ctx.system_database_url):
            _lease = _Lease(libpq_url(ctx.system_database_url))  # before DBOS may run anything
        refuse_pickles()
        DBOS(
            config={
                "name": APP_NAME,
                "system_database_url": ctx.system_database_url,
                "dbos_system_schema": ctx.system_schema,
                "application_version": APPLICATION_VERSION,
                "log_level": "WARNING",
                "sys_db_pool_size": DBOS_POOL_SIZE,  # in each worker's connection budget
                "executor_id": _lease.executor_id if _lease else "local",
                # JSON, not pickles: the system database must not be a way to run code here.
                "serializer": JsonSerializer(),
            }
        )
        _context, _owner = ctx, owner
        try:
            DBOS.launch()
            if _lease is not None:
                _lease.recover_dead_executors()
                release_stopped_claims()
                _lease.sweep_in_background()
        except BaseException:
            _shutdown()
            raise
        launch_seconds.append(time.perf_counter() - began)
        _log.info("dbos_launched", system_database=_redacted(ctx), seconds=launch_seconds[-1])


def release(owner: object) -> None:
    """Destroy DBOS if ``owner`` holds it (app shutdown)."""
    with _lock:
        if _owner is owner and _context is not None:
            _shutdown()


def owns(owner: object) -> bool:
    return _owner is owner and _context is not None


_stopped_launches: set[str] = set()


def stopped(launch_id: str) -> bool:
    """Whether DBOS of that launch was shut down (the app stopping while a workflow ran)."""
    with _lock:
        return launch_id in _stopped_launches


def _shutdown() -> None:
    global _context, _owner, _lease
    if _context is not None:
        _stopped_launches.add(_context.launch_id)
    if _lease is not None:
        _lease.stop_sweeping()
    DBOS.destroy()
    if _lease is not None:
        _lease.close()  # after DBOS stopped: no workflow of ours runs without the lease
    _context, _owner, _lease = None, None, None


class _Lease:
    """This launch's executor id, and the advisory lock that says it is alive."""

    def __init__(self, conninfo: str) -> None:
        self.executor_id = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._connection = psycopg.connect(
            conninfo,
            autocommit=True,
            keepalives=1,
            keepalives_idle=10,
            keepalives_interval=5,
            keepalives_count=3,
        )
        self._use = threading.Lock()
        self._stop = threading.Event()
        self._sweeper: threading.Thread | None = None
        self._connection.execute(
            "select pg_advisory_lock(%s)", (advisory_key("executor", self.executor_id),)
        )

    def _try_lock(self, executor_id: str) -> bool:
        with self._use:
            row = self._connection.execute(
                "select pg_try_advisory_lock(%s)", (advisory_key("executor", executor_id),)
            ).fetchone()
        return bool(row and row[0])

    def _unlock(self, executor_id: str) -> None:
        with self._use:
            self._connection.execute(
                "select pg_advisory_unlock(%s)", (advisory_key("executor", executor_id),)
            )

    def is_dead(self, executor_id: str) -> bool:
        """Whether that executor's lease is free: its worker is gone."""
        if not self._try_lock(executor_id):
            return False
        self._unlock(executor_id)
        return True

    def recover_dead_executors(self) -> list[str]:
        """Re-enqueue the pending workflows of every executor whose lease is free; their ids."""
        pending = DBOS.list_workflows(
            status="PENDING", app_version=APPLICATION_VERSION, load_input=False, load_output=False
        )
        dead = []
        for executor_id in sorted(
            {w.executor_id for w in pending if w.executor_id} - {self.executor_id}
        ):
            if not self._try_lock(executor_id):
                continue  # alive: its worker runs them
            try:
                DBOS._recover_pending_workflows([executor_id])
                dead.append(executor_id)
            finally:
                self._unlock(executor_id)
        if dead:
            _log.warning("tasks_of_dead_workers_recovered", executors=dead)
        return dead

    def sweep_in_background(self) -> None:
        def sweep() -> None:
            while not self._stop.wait(DEAD_EXECUTOR_SWEEP_S):
                try:
                    self.recover_dead_executors()
                    release_stopped_claims()
                except Exception:  # the database away for a moment: try at the next sweep
                    _log.exception("dead executor sweep failed")

        self._sweeper = threading.Thread(target=sweep, name="sstools-task-sweeper", daemon=True)
        self._sweeper.start()

    def stop_sweeping(self) -> None:
        self._stop.set()
        if self._sweeper is not None and self._sweeper is not threading.current_thread():
            self._sweeper.join(timeout=30)

    def close(self) -> None:
        self._connection.close()


def _redacted(ctx: TaskContext) -> str:
    from sqlalchemy.engine import make_url

    return make_url(ctx.system_database_url).render_as_string(hide_password=True)


def _still_running(task_id: str) -> bool:
    """Whether the workflow of ``task_id`` may still be in a step, here or on a live worker."""
    # No _lock: the sweeper calls this, and a shutdown holding _lock waits for the sweeper.
    if task_id in _active:
        return True
    lease = _lease
    if lease is None:  # SQLite: one process, and the workflow is not running in it
        return False
    status = DBOS.get_workflow_status(task_id)
    executor = status.executor_id if status is not None else None
    if executor is None or executor == lease.executor_id:
        return False
    return not lease.is_dead(executor)  # a live worker releases the claims as its step ends


def release_stopped_claims(task_ids: list[str] | None = None) -> list[str]:
    """Release the claims of cancelled tasks whose workflow has stopped; their ids.

    Called right after a cancel (the workflow may not have begun), and by the sweep on a shared
    database (its worker was killed in the step). A workflow not yet begun when its record was
    cancelled is CANCELLED in DBOS already, so it runs no step once it starts.
    """
    ctx = context()
    held = ctx.store.finished_with_claims()
    released = []
    for task_id in held if task_ids is None else [one for one in task_ids if one in held]:
        if not _still_running(task_id):
            ctx.store.release(task_id)
            released.append(task_id)
    if released:
        _log.info("task_claims_released", tasks=released)
    return released


def active() -> frozenset[str]:
    """Tasks whose workflow runs in this process right now."""
    with _lock:
        return frozenset(_active)


def enter(task_id: str) -> None:
    with _lock:
        _active.add(task_id)


def leave(task_id: str) -> None:
    with _lock:
        _active.discard(task_id)
