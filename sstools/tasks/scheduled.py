"""Tasks DBOS's scheduler starts on a cron: each tick is a task record like any other.

    @scheduled_task(TaskKind.drift_watch, cron=lambda settings: settings.drift_watch_cron)
    def drift_watch() -> dict[str, Any]:
        return {...}                      # the tick's task result

DBOS calls the registered workflow with the tick's time and a context (unused); its workflow id
(``sched-<name>-<time>``) is the same on every worker, so a tick runs once in the fleet. The
tick's record gets an id made from that workflow id, so a replay after a restart finds it rather
than adding a second. The schedules are applied when the engine launches DBOS
(and by :meth:`sstools.tasks.TaskEngine.start_schedules`); an empty cron deletes the schedule.
A tick that finds an earlier one still running records nothing and ends.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog
from dbos import DBOS, ScheduleInput
from sqlalchemy import insert, select

from sstools.config import Settings
from sstools.storage.models import TaskRecord
from sstools.tasks import _runtime
from sstools.tasks.models import TaskKind, TaskStatus
from sstools.tasks.workflow import REGISTERED, workflow_name
from sstools.texts import tasks as texts

_log = structlog.get_logger(__name__)

SCHEDULED_BY = "sstools"  # who a tick's record says started it
FLEET = "fleet"  # a tick's record: it reads every environment and writes none


@dataclass(frozen=True)
class Schedule:
    name: str
    kind: TaskKind
    cron: Callable[[Settings], str]
    workflow: Callable[..., None]


SCHEDULES: dict[str, Schedule] = {}


def tick_task_id(workflow_id: str) -> str:
    return uuid.uuid5(uuid.NAMESPACE_URL, f"sstools:{workflow_id}").hex


def wanted(settings: Settings) -> bool:
    """Whether any scheduled task has a cron with these settings."""
    return any(one.cron(settings).strip() for one in SCHEDULES.values())


def _record(task_id: str, kind: TaskKind, name: str) -> bool:
    """Record the tick's task; False (nothing recorded) while an earlier tick still runs."""
    store = _runtime.context().store
    with store.engine.begin() as connection:
        if connection.execute(select(TaskRecord.id).where(TaskRecord.id == task_id)).first():
            return True  # a replay of this tick
        earlier = select(TaskRecord.id).where(
            TaskRecord.kind == kind.value,
            TaskRecord.status.in_([TaskStatus.queued.value, TaskStatus.running.value]),
        )
        if connection.execute(earlier).first():
            return False
        connection.execute(
            insert(TaskRecord).values(
                id=task_id,
                kind=kind.value,
                workflow=name,
                objects=[texts.KINDS.get(kind.value, kind.value)],
                object_keys=[],
                env_id=FLEET,
                source=None,
                started_by=SCHEDULED_BY,
                status=TaskStatus.queued.value,
            )
        )
    return True


def scheduled_task(
    kind: TaskKind, *, cron: Callable[[Settings], str]
) -> Callable[[Callable[[], dict[str, Any]]], Callable[..., None]]:
    """Register ``fn`` (no arguments, returns the tick's result) to run on ``cron(settings)``."""

    def register(fn: Callable[[], dict[str, Any]]) -> Callable[..., None]:
        name = workflow_name(fn)

        def tick(scheduled_at: Any, context: Any) -> None:
            workflow_id = DBOS.workflow_id or name
            task_id = tick_task_id(workflow_id)
            if not _record(task_id, kind, name):
                _log.info("scheduled_task_skipped", workflow=name, reason="earlier tick running")
                return
            store = _runtime.context().store
            store.running(task_id)
            try:
                result = DBOS.run_step({"name": name}, fn)
            except Exception as exc:
                _log.error("scheduled_task_failed", task_id=task_id, workflow=name, exc_info=exc)
                error = texts.UNEXPECTED_FAILURE.format(kind=type(exc).__name__)
                store.finish(task_id, TaskStatus.failed.value, error=error)
                return
            store.finish(task_id, TaskStatus.succeeded.value, result=result)

        tick.__name__ = tick.__qualname__ = f"{fn.__name__}_tick"
        registered = DBOS.workflow(name=name)(tick)
        SCHEDULES[name] = Schedule(name, kind, cron, registered)
        # Known to recovery: a tick cut short by a restart ends «прервано перезапуском», not
        # «this build lacks its workflow» (DBOS replays the tick itself, which finds it ended).
        REGISTERED[name] = registered
        return registered

    return register


def apply_schedules(settings: Settings) -> list[str]:
    """Create or update each schedule with a cron, delete those without; the names applied.

    Call with DBOS launched (outside a workflow).
    """
    wanted = [one for one in SCHEDULES.values() if one.cron(settings).strip()]
    if wanted:
        DBOS.apply_schedules(
            [
                ScheduleInput(
                    schedule_name=one.name,
                    workflow_fn=one.workflow,
                    schedule=one.cron(settings).strip(),
                    context=None,
                )
                for one in wanted
            ]
        )
    for one in SCHEDULES.values():
        if one not in wanted:
            DBOS.delete_schedule(one.name)
    return [one.name for one in wanted]
