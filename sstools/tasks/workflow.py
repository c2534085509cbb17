"""Writing a task's workflow: a sync function of ``task_id`` whose steps are checkpointed.

    @task_workflow
    def deploy(task_id: str, dashboard_id: int) -> dict[str, Any]:
        bundle = task_step(task_id, 1, 3, "экспорт", export, dashboard_id)
        task_step(task_id, 2, 3, "импорт", import_, bundle, resumable=False)
        ...
        return {"imported": [...]}          # the task's result; the task ends `succeeded`

Raise :class:`TaskFailed` to end `failed` with a partial report; any other exception ends it
`failed` with the exception's text. After a kill, DBOS re-runs the function: steps already
checkpointed return their recorded output without running again; a step begun but not
finished runs again — unless declared ``resumable=False``, when the task ends `failed` instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

import structlog
from dbos import DBOS
from dbos._error import DBOSAwaitedWorkflowCancelledError, DBOSWorkflowCancelledError

from sstools.tasks import _runtime
from sstools.tasks.models import TaskStatus

_log = structlog.get_logger(__name__)

P = ParamSpec("P")
R = TypeVar("R")
TaskResult = dict[str, Any] | None

# Names of the workflows declared with task_workflow: a task may only start one of these, and
# recovery fails a task whose workflow this build no longer has.
REGISTERED: dict[str, Callable[..., TaskResult]] = {}

INTERRUPTED = "прервано перезапуском сервера; шаг {step} из {total} «{name}» не завершён"
INTERRUPTED_BEFORE_START = "прервано перезапуском сервера до начала выполнения"
WORKFLOW_GONE = "прервано перезапуском сервера: эта версия сервера не умеет продолжить задачу"


# Cancellation surfaces as these inside a workflow: re-raise them, never turn them into failures.
CANCELLATION: tuple[type[BaseException], ...] = (
    DBOSWorkflowCancelledError,
    DBOSAwaitedWorkflowCancelledError,
)


class TaskFailed(Exception):
    """End the task `failed` with ``reason`` and, where useful, a partial ``result``."""

    def __init__(self, reason: str, result: dict[str, Any] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.result = result

    def __reduce__(self) -> tuple[type[TaskFailed], tuple[str, dict[str, Any] | None]]:
        return (type(self), (self.reason, self.result))  # DBOS pickles a step's exception


# What a workflow catching a step's failure must let through: a cancellation, or a verdict the
# step (or task_step) already gave, is not a failure of that step.
PASS_THROUGH: tuple[type[BaseException], ...] = (*CANCELLATION, TaskFailed)


def workflow_name(fn: Callable[..., Any]) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def task_workflow(
    fn: Callable[Concatenate[str, P], TaskResult],
) -> Callable[Concatenate[str, P], TaskResult]:
    """Register ``fn`` as a DBOS workflow that keeps its task record up to date."""
    name = workflow_name(fn)

    @functools.wraps(fn)
    def run(task_id: str, /, *args: P.args, **kwargs: P.kwargs) -> TaskResult:
        store = _runtime.context().store
        launch = _runtime.context().launch_id
        _runtime.enter(task_id)
        try:
            store.running(task_id)
            try:
                result = fn(task_id, *args, **kwargs)
            except CANCELLATION:
                store.finish(task_id, TaskStatus.cancelled)
                raise
            except Exception as exc:
                # The server stopped under the workflow, so its step failed for that reason
                # alone: the task stays unfinished, for recovery at the next start.
                if _runtime.stopped(launch):
                    raise
                if isinstance(exc, TaskFailed):
                    store.finish(task_id, TaskStatus.failed, result=exc.result, error=exc.reason)
                    return None
                _log.error("task_failed", task_id=task_id, workflow=name, exc_info=exc)
                store.finish(task_id, TaskStatus.failed, error=f"{type(exc).__name__}: {exc}")
                return None
            store.finish(task_id, TaskStatus.succeeded, result=result)
            return result
        finally:
            _runtime.leave(task_id)

    registered = DBOS.workflow(name=name)(run)
    REGISTERED[name] = registered
    return registered


def progress(task_id: str, step: int, total: int, name: str) -> None:
    """Show «шаг ``step`` из ``total``: ``name``» on the task (re-written on replay: harmless)."""
    _runtime.context().store.progress(task_id, step, total, name)


def _launch_id() -> str:
    return _runtime.context().launch_id


def task_step(
    task_id: str,
    step: int,
    total: int,
    name: str,
    fn: Callable[..., R],
    *args: Any,
    resumable: bool = True,
) -> R:
    """Run ``fn`` as checkpointed step ``step`` of ``total``; see the module's docstring."""
    progress(task_id, step, total, name)
    if resumable:
        return DBOS.run_step({"name": name}, fn, *args)
    # Checkpointed before the step runs: replayed with an older launch id, it says the step
    # began in an earlier process that died before checkpointing the step's own output.
    begun = DBOS.run_step({"name": f"{name}: начало"}, _launch_id)

    def guarded() -> R:
        if begun != _launch_id():
            raise TaskFailed(INTERRUPTED.format(step=step, total=total, name=name))
        return fn(*args)

    return DBOS.run_step({"name": name}, guarded)
