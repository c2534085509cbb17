"""``/api/tasks``: follow and cancel tasks (any role reads; the starter or an admin cancels)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Path, Query

from sstools.http.auth import CurrentUser
from sstools.http.deps import EnvIdQuery, ServicesDep, find_environment
from sstools.http.errors import field_error
from sstools.http.services import Services
from sstools.ids import MAX_ID
from sstools.superset.errors import SupersetError
from sstools.tasks.engine import TaskEngine
from sstools.tasks.models import Task, TaskKind, TaskStatus, dashboard_key
from sstools.texts import http as texts

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
    services: ServicesDep,
    env_id: Annotated[str | None, EnvIdQuery] = None,
    status: Annotated[TaskStatus | None, Query(description="queued, running, …")] = None,
    kind: Annotated[TaskKind | None, Query(description="deploy, rollback, backup, …")] = None,
    started_by: Annotated[str | None, Query(max_length=64, description="who started it")] = None,
    dashboard_id: Annotated[
        int | None,
        Query(ge=1, le=MAX_ID, description="Only tasks that wrote this dashboard, anywhere"),
    ] = None,
    dashboard_env_id: Annotated[
        str | None, Query(max_length=64, description="Where `dashboard_id` is its id")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> list[Task]:
    """Newest first. With ``dashboard_id`` (its id in ``dashboard_env_id``): the tasks that
    wrote that dashboard in any environment (``env_id`` still narrows where)."""
    key = None
    if dashboard_id is not None:
        key = await _dashboard_key(services, dashboard_env_id, dashboard_id)
    return await tasks.list(
        env_id=env_id,
        status=status,
        kind=kind,
        started_by=started_by,
        object_key=key,
        limit=limit,
    )


async def _dashboard_key(services: Services, env_id: str | None, dashboard_id: int) -> str:
    """The key tasks claim the dashboard by (:func:`dashboard_key`)."""
    if env_id is None:
        raise field_error("dashboard_env_id", texts.DASHBOARD_ENV_NEEDED, where="query")
    env = find_environment(services, env_id)
    try:
        found = await services.superset.client(env.id).find_dashboard("id", dashboard_id)
    except SupersetError as exc:
        raise HTTPException(502, texts.DASHBOARD_UNREADABLE.format(env=env.id)) from exc
    if found is None:
        raise HTTPException(404, texts.NO_DASHBOARD.format(id=dashboard_id, env=env.id))
    return dashboard_key(found[0])


@router.post("/{task_id}/cancel")
async def cancel_task(task_id: TaskId, tasks: TasksDep, user: CurrentUser) -> Task:
    """Backups and restores: admins; any other task: the person who started it, or an admin."""
    return await tasks.cancel(task_id, user.username, role=user.role)
