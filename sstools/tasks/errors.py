"""What starting, reading and cancelling tasks refuses (the HTTP edge, ``sstools.app``, picks
statuses)::

    TaskError
    ├── TaskNotFound
    ├── TaskReferenceAmbiguous  the first digits given name more than one task
    ├── TaskConflict         names the task that holds the object
    ├── TaskFinished         a finished task cannot be cancelled
    ├── TaskCancelForbidden  not the caller's task to cancel
    └── TaskLimited          over a cap on starting tasks; when trying again may succeed
        └── TooManyTasks     the user's unfinished tasks are at SSTOOLS_TASKS_PER_USER
"""

from __future__ import annotations

from sstools.auth.roles import Role
from sstools.errors import SstoolsError
from sstools.tasks.models import Task, TaskStatus
from sstools.texts import task_references as references
from sstools.texts import tasks as texts

# When to try again after TooManyTasks: a slot frees only when one of the user's tasks ends.
TASK_SLOT_RETRY_AFTER_S = 30


class TaskError(SstoolsError):
    pass


class TaskNotFound(TaskError):
    def __init__(self, task_id: str) -> None:
        super().__init__(texts.NOT_FOUND.format(task=task_id))


class TaskReferenceAmbiguous(TaskError):
    def __init__(self, reference: str) -> None:
        super().__init__(references.AMBIGUOUS.format(reference=reference))


class TaskConflict(TaskError):
    """Another unfinished task writes one of the same objects in the same environment."""

    def __init__(self, running: Task) -> None:
        objects = ", ".join(f"«{name}»" for name in running.objects)
        head = texts.CONFLICT.format(
            env=running.env_id,
            task=running.id,
            kind=running.kind.value,
            user=running.started_by,
            objects=objects or texts.CONFLICT_SAME_OBJECTS,
        )
        if running.status is TaskStatus.cancelled:  # claims are held until its step ends
            super().__init__(head + texts.CONFLICT_CANCELLED)
        else:
            super().__init__(head + texts.CONFLICT_RUNNING)
        self.running = running


class TaskFinished(TaskError):
    def __init__(self, task: Task) -> None:
        status = texts.STATUSES.get(task.status.value, task.status.value)
        super().__init__(texts.FINISHED.format(task=task.id, status=status))
        self.task = task


class TaskLimited(TaskError):
    """Starting it now would exceed a cap; ``retry_after_s``: when trying again may succeed."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class TooManyTasks(TaskLimited):
    def __init__(self, limit: int) -> None:
        super().__init__(texts.TOO_MANY.format(limit=limit), TASK_SLOT_RETRY_AFTER_S)
        self.limit = limit


class TaskCancelForbidden(TaskError):
    """The caller may not cancel this task; an admin may."""

    def __init__(self, task: Task, message: str) -> None:
        super().__init__(message)
        self.task = task
        self.required = Role.admin
