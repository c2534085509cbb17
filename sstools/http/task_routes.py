"""``/api/tasks``: follow and cancel tasks (any role reads; the starter or an admin cancels)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from sstools.http.auth import CurrentUser
from sstools.http.deps import EnvIdQuery, ServicesDep
from sstools.tasks.engine import TaskEngine
from sstools.tasks.models import Task, TaskKind, TaskStatus

router = APIRouter(prefix="/api/tasks", tags=["tasks"])

TaskId = Annotated[
    str,
    Path(
        description="The task id (32 hex digits), or its first 8 or more, as people quote it",
        pattern=r"^[0-9a-f]{8,32}$",
    ),
]


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
    kind: Annotated[TaskKind | None, Query(description="deploy, rollback, backup, …")] = None,
    started_by: Annotated[str | None, Query(max_length=64, description="who started it")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> list[Task]:
    """Newest first."""
    return await tasks.list(
        env_id=env_id, status=status, kind=kind, started_by=started_by, limit=limit
    )


@router.post("/{task_id}/cancel")
async def cancel_task(task_id: TaskId, tasks: TasksDep, user: CurrentUser) -> Task:
    """Backups and restores: admins; any other task: the person who started it, or an admin."""
    return await tasks.cancel(task_id, user.username, role=user.role)
