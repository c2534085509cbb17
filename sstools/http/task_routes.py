"""``/api/tasks``: follow and cancel tasks (any role reads; the starter or an admin cancels)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse

from sstools.http.auth import CurrentUser
from sstools.http.deps import EnvIdQuery, ServicesDep
from sstools.tasks.engine import (
    TaskCancelForbidden,
    TaskConflict,
    TaskEngine,
    TaskFinished,
    TaskLimited,
    TaskNotFound,
)
from sstools.tasks.models import Task, TaskStatus

router = APIRouter(prefix="/api/tasks", tags=["tasks"])

TaskId = Annotated[str, Path(description="The task id, 32 hex digits", pattern=r"^[0-9a-f]{32}$")]


def get_tasks(services: ServicesDep) -> TaskEngine:
    return services.tasks


TasksDep = Annotated[TaskEngine, Depends(get_tasks)]


@router.get("/{task_id}")
async def get_task(task_id: TaskId, tasks: TasksDep, user: CurrentUser) -> Task:
    try:
        return await tasks.get(task_id)
    except TaskNotFound as exc:
        raise HTTPException(404, str(exc)) from exc


@router.get("")
async def list_tasks(
    tasks: TasksDep,
    user: CurrentUser,
    env_id: Annotated[str | None, EnvIdQuery] = None,
    status: Annotated[TaskStatus | None, Query(description="queued, running, …")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> list[Task]:
    return await tasks.list(env_id=env_id, status=status, limit=limit)


@router.post("/{task_id}/cancel", response_model=None)
async def cancel_task(task_id: TaskId, tasks: TasksDep, user: CurrentUser) -> Task | JSONResponse:
    """Backups and restores: admins; any other task: the person who started it, or an admin."""
    try:
        return await tasks.cancel(task_id, user.username, role=user.role)
    except TaskNotFound as exc:
        raise HTTPException(404, str(exc)) from exc
    except TaskFinished as exc:
        raise HTTPException(409, str(exc)) from exc
    except TaskCancelForbidden as exc:  # the same body as any role refusal: the agent reads it
        body = {"detail": str(exc), "required_role": exc.required.value}
        return JSONResponse(body, status_code=403)


async def task_conflict(request: Request, exc: Exception) -> JSONResponse:
    """Any route that starts a task: 409 naming the task that holds the object."""
    assert isinstance(exc, TaskConflict)
    body = {"detail": str(exc), "running_task": exc.running.model_dump(mode="json")}
    return JSONResponse(body, status_code=409)


async def task_limited(request: Request, exc: Exception) -> JSONResponse:
    """Any route that starts a task: 429 saying which cap and when to try again."""
    assert isinstance(exc, TaskLimited)
    return JSONResponse(
        {"detail": str(exc)},
        status_code=429,
        headers={"Retry-After": str(exc.retry_after_s)},
    )
