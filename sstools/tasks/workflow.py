"""Writing a task's workflow: a sync function of ``task_id`` whose steps are checkpointed.

    @task_workflow
    def deploy(task_id: str, dashboard_id: int) -> dict[str, Any]:
        bundle = task_step(task_id, 1, 3, "экспорт", export, dashboard_id)
        task_step(task_id, 2, 3, "импорт", import_, bundle, resumable=False)
        ...
        return {"imported": [...]}          # the task's result; the task ends `succeeded`

Raise :class:`TaskFailed` to end `failed` with a partial report; any other exception ends it
`failed` with the exception's text. A cancelled task stops before its next step (its record is
read before each one, and DBOS refuses one too); a workflow
with a partial report to keep calls :func:`report_on_cancel` as the cancellation passes. After
a kill, DBOS re-runs the function: steps already checkpointed return their recorded output
without running again; a step begun but not finished runs again — unless declared
``resumable=False``, when the task ends `failed` instead.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Concatenate, ParamSpec, TypeVar

import structlog
from dbos import DBOS
from dbos._error import (
    DBOSAwaitedWorkflowCancelledError,
    DBOSWorkflowCancelledError,
    DBOSWorkflowConflictIDError,
)

from sstools.errors import SstoolsError
from sstools.tasks import _runtime
from sstools.tasks.failure import TaskFailed
from sstools.tasks.models import TaskStatus
from sstools.tasks.reasons import error_words
from sstools.tasks.serializer import RecordedStepError
from sstools.texts import tasks as texts

_log = structlog.get_logger(__name__)

P = ParamSpec("P")
R = TypeVar("R")
TaskResult = dict[str, Any] | None

# Names of the workflows declared with task_workflow: a task may only start one of these, and
# recovery fails a task whose workflow this build no longer has.
REGISTERED: dict[str, Callable[..., TaskResult]] = {}


# Cancellation surfaces as these inside a workflow: re-raise them, never turn them into failures.
CANCELLATION: tuple[type[BaseException], ...] = (
    DBOSWorkflowCancelledError,
    DBOSAwaitedWorkflowCancelledError,
)


class StepCancelled(DBOSWorkflowCancelledError, SstoolsError):
    """The workflow was cancelled while this step ran: the step finished, but DBOS refused to
    checkpoint its outcome (a cancel takes the workflow from this execution).

    ``ran`` says the step returned (its ``output`` here), so a workflow can report what it did;
    DBOS, seeing a cancellation, parks the execution as for any other.
    """

    def __init__(self, task_id: str, name: str, *, ran: bool, output: Any) -> None:
        super().__init__(f"task {task_id} cancelled during step «{name}»")
        self.ran = ran
        self.output = output


def step_output(cancelled: BaseException) -> tuple[bool, Any]:
    """For a cancellation caught around a step: whether that step ran, and what it returned."""
    if isinstance(cancelled, StepCancelled):
        return cancelled.ran, cancelled.output
    return False, None


# What a workflow catching a step's failure must let through: a cancellation, or a verdict the
# step (or task_step) already gave, is not a failure of that step.
PASS_THROUGH: tuple[type[BaseException], ...] = (*CANCELLATION, TaskFailed)


@contextmanager
def failing_as(
    reason: str, report: dict[str, Any] | None = None, **fields: object
) -> Iterator[None]:
    """Around a workflow's step: an error it raises (not a cancellation, nor a verdict already
    given) ends the task `failed` with ``reason`` — formatted with ``fields`` and ``error``, the
    error in words a task may say (:func:`~sstools.tasks.reasons.error_words`) — and ``report``."""
    try:
        yield
    except PASS_THROUGH:
        raise
    except Exception as exc:
        raise TaskFailed(reason.format(**fields, error=error_words(exc)), report) from exc


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
                # Stopped at last (the step under way has ended): keep what it left, free claims.
                store.cancelled(task_id, _reports_on_cancel.pop(task_id, None))
                raise
            except Exception as exc:
                # The server stopped under the workflow, so its step failed for that reason
                # alone: the task stays unfinished, for recovery at the next start.
                if _runtime.stopped(launch):
                    raise
                if isinstance(exc, TaskFailed):
                    if not store.finish(
                        task_id, TaskStatus.failed, result=exc.result, error=exc.reason
                    ):
                        store.cancelled(task_id, exc.result)  # cancelled meanwhile: keep the report
                    return None
                _log.error("task_failed", task_id=task_id, workflow=name, exc_info=exc)
                kind = exc.type_name if isinstance(exc, RecordedStepError) else type(exc).__name__
                # The text may quote a request, a URL or a credential: it stays in the log.
                store.finish(
                    task_id, TaskStatus.failed, error=texts.UNEXPECTED_FAILURE.format(kind=kind)
                )
                return None
            if not store.finish(task_id, TaskStatus.succeeded, result=result):
                # Cancelled after its last step had begun: what it did (a snapshot, the
                # imports) is still the record's, so a rollback can find it.
                store.cancelled(task_id, result)
            return result
        finally:
            _reports_on_cancel.pop(task_id, None)
            _runtime.leave(task_id)

    registered = DBOS.workflow(name=name)(run)
    REGISTERED[name] = registered
    return registered


_reports_on_cancel: dict[str, dict[str, Any]] = {}


def report_on_cancel(task_id: str, result: dict[str, Any]) -> None:
    """Call as a cancellation passes (``except CANCELLATION``): the cancelled task's report.

    E.g. a deploy's «imported / not imported» and its snapshot, so a rollback can undo it.
    """
    _reports_on_cancel[task_id] = result


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
    if _runtime.context().store.is_cancelled(task_id):
        _stop_cancelled(task_id, name)
    progress(task_id, step, total, name)
    if resumable:
        return _run_step(task_id, name, fn, *args)
    # Checkpointed before the step runs: replayed with an older launch id, it says the step
    # began in an earlier process that died before checkpointing the step's own output.
    begun = _run_step(task_id, texts.STEP_BEGUN.format(name=name), _launch_id)

    def guarded() -> R:
        if begun != _launch_id():
            raise TaskFailed(texts.INTERRUPTED.format(step=step, total=total, name=name))
        return fn(*args)

    return _run_step(task_id, name, guarded)


def _stop_cancelled(task_id: str, name: str) -> None:
    """The record says cancelled, so no step may run. A cancel writes the record before it
    tells DBOS, and a short task just started could run every step in between: tell DBOS now
    (from a thread of its own, outside this workflow, as the engine does), then stop."""
    told = threading.Thread(target=DBOS.cancel_workflow, args=(task_id,), name="task-cancel")
    told.start()
    told.join()
    raise StepCancelled(task_id, name, ran=False, output=None)


# A cancel takes the workflow from the execution running it: recording the outcome of the step
# under way then raises DBOSWorkflowConflictIDError.
_CANCELLED_OR_TAKEN: tuple[type[BaseException], ...] = (*CANCELLATION, DBOSWorkflowConflictIDError)


def _run_step(task_id: str, name: str, fn: Callable[..., R], *args: Any) -> R:
    returned: list[R] = []

    def run() -> R:
        output = fn(*args)
        returned.append(output)
        return output

    try:
        return DBOS.run_step({"name": name}, run)
    except _CANCELLED_OR_TAKEN as exc:
        # A takeover by another execution (recovery) raises that too: only a cancel is ours.
        # (Not DBOS.get_workflow_status: inside a workflow it is a step, refused once cancelled.)
        taken = isinstance(exc, DBOSWorkflowConflictIDError)
        if taken and not _runtime.context().store.is_cancelled(task_id):
            raise
        output = returned[0] if returned else None
        raise StepCancelled(task_id, name, ran=bool(returned), output=output) from exc
