"""The one DBOS of this process: launched lazily for the app that needs it, handed over safely.

DBOS is a process-wide singleton bound to one system database. Several apps may live in one
process (tests, a browser server): the first that starts a task (or finds unfinished ones on
start) launches it; another app with another system database may take it over only while no
workflow of ours is running in it.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass, field

import structlog
from dbos import DBOS

from sstools.config import Settings
from sstools.environments import EnvironmentRegistry
from sstools.storage.tasks import SyncTaskStore

_log = structlog.get_logger(__name__)

APP_NAME = "sstools"
# Recovery only resumes workflows of the same application version: pinned, so an upgrade of
# sstools resumes what the previous build left. Bump only with a workflow change that cannot
# replay older checkpoints (and then unfinished tasks of the old version end `failed`).
APPLICATION_VERSION = "sstools-1"


class TasksBusy(RuntimeError):
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
        DBOS(
            config={
                "name": APP_NAME,
                "system_database_url": ctx.system_database_url,
                "dbos_system_schema": ctx.system_schema,
                "application_version": APPLICATION_VERSION,
                "log_level": "WARNING",
            }
        )
        _context, _owner = ctx, owner
        try:
            DBOS.launch()
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
    global _context, _owner
    if _context is not None:
        _stopped_launches.add(_context.launch_id)
    DBOS.destroy()
    _context, _owner = None, None


def _redacted(ctx: TaskContext) -> str:
    from sqlalchemy.engine import make_url

    return make_url(ctx.system_database_url).render_as_string(hide_password=True)


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
