"""Durable background tasks on DBOS Transact: records users see, workflows that survive a kill.

See docs/tasks.md for the states, claims (409), recovery and where the system database lives.
"""

from sstools.tasks._runtime import TaskContext, TasksBusy, context
from sstools.tasks.engine import (
    TaskConflict,
    TaskEngine,
    TaskError,
    TaskFinished,
    TaskNotFound,
    system_database,
)
from sstools.tasks.models import Task, TaskKind, TaskProgress, TaskStatus
from sstools.tasks.superset import with_superset
from sstools.tasks.workflow import (
    CANCELLATION,
    PASS_THROUGH,
    TaskFailed,
    progress,
    task_step,
    task_workflow,
)

__all__ = [
    "CANCELLATION",
    "PASS_THROUGH",
    "Task",
    "TaskConflict",
    "TaskContext",
    "TaskEngine",
    "TaskError",
    "TaskFailed",
    "TaskFinished",
    "TaskKind",
    "TaskNotFound",
    "TaskProgress",
    "TaskStatus",
    "TasksBusy",
    "context",
    "progress",
    "system_database",
    "task_step",
    "task_workflow",
    "with_superset",
]
