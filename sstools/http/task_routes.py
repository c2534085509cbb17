"""``/api/tasks``: follow and cancel tasks (any role reads; the starter or an admin cancels)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from sstools.http.auth import CurrentUser
from sstools.http.deps import EnvIdQuery, ServicesDep
from sstools.tasks.engine import TaskEngine
from sstools.tasks.models import Task, TaskStatus

router = APIRouter(prefix="/api/tasks", tags=["tasks"])

TaskId = Annotated[str, Path(description="The task id, 32 hex digits", pattern=r"^[0-9a-f]{32}$")]


def get_tasks(services: ServicesDep) -> TaskEngine:
    return services.tasks


TasksDep = Annotated[TaskEngine, Depends(get_tasks)]


@router.get("/{task_id}")
async def get_task(task_id: TaskId, tasks: TasksDep, user: CurrentUser) -> Task:
    return await tasks.get(task_id)


@router.get("")
async def list_tasks(
    tasks: TasksDep,
    user: CurrentUser,
    env_id: Annotated[str | None, EnvIdQuery] = None,
    status: Annotated[TaskStatus | None, Query(description="queued, running, …")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> list[Task]:
    return await tasks.list(env_id=env_id, status=status, limit=limit)


@router.post("/{task_id}/cancel")
async def cancel_task(task_id: TaskId, tasks: TasksDep, user: CurrentUser) -> Task:
    """Backups and restores: admins; any other task: the person who started it, or an admin."""
    return await tasks.cancel(task_id, user.username, role=user.role)
