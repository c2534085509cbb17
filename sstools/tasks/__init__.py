"""Durable background tasks on DBOS Transact: records users see, workflows that survive a kill.

See docs/tasks.md for the states, claims (409), recovery and where the system database lives.
"""

from sstools.tasks._runtime import TaskContext, TasksBusy, context
from sstools.tasks.engine import TaskEngine, system_database
from sstools.tasks.errors import (
    TaskCancelForbidden,
    TaskConflict,
    TaskError,
    TaskFinished,
    TaskLimited,
    TaskNotFound,
    TaskReferenceAmbiguous,
    TooManyTasks,
)
from sstools.tasks.failure import TaskFailed
from sstools.tasks.models import Task, TaskKind, TaskProgress, TaskStatus, dashboard_key
from sstools.tasks.reasons import error_words
from sstools.tasks.scheduled import scheduled_task
from sstools.tasks.superset import with_superset
from sstools.tasks.workflow import (
    CANCELLATION,
    PASS_THROUGH,
    StepCancelled,
    failing_as,
    progress,
    report_on_cancel,
    step_output,
    task_step,
    task_workflow,
)

__all__ = [
    "CANCELLATION",
    "PASS_THROUGH",
    "StepCancelled",
    "Task",
    "TaskCancelForbidden",
    "TaskConflict",
    "TaskContext",
    "TaskEngine",
    "TaskError",
    "TaskFailed",
    "TaskFinished",
    "TaskKind",
    "TaskLimited",
    "TaskNotFound",
    "TaskProgress",
    "TaskReferenceAmbiguous",
    "TaskStatus",
    "TasksBusy",
    "TooManyTasks",
    "context",
    "dashboard_key",
    "error_words",
    "failing_as",
    "progress",
    "report_on_cancel",
    "scheduled_task",
    "step_output",
    "system_database",
    "task_step",
    "task_workflow",
    "with_superset",
]
