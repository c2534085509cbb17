"""``/tasks`` and ``/tasks/{id}``: the durable tasks, as people follow them; and a dashboard's
deploy history (the deploys, migrations and rollbacks that wrote it, in any environment)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal
from sstools.environments import Environment
from sstools.http.deps import ServicesDep, SessionDep
from sstools.http.services import Services
from sstools.storage import tasks as records
from sstools.storage.models import TaskRecord
from sstools.storage.task_lookup import tasks_named
from sstools.superset import SupersetError
from sstools.superset.models import DashboardSummary
from sstools.web._kit import PageUser, agent_link, environment, render
from sstools.web._task_words import (
    DASHBOARD_KEY,
    KINDS,
    STATUSES,
    WRITES_DASHBOARDS,
    TaskView,
    task_view,
    task_views,
)
from sstools.web.strings import UI

router = APIRouter(include_in_schema=False)

LIST_LIMIT = 100
HISTORY_LIMIT = 20
LOOKUP_TIMEOUT_S = 5.0  # a stopped environment must not hold the task page up
TaskRef = Annotated[str, Path(pattern=r"^[0-9a-f]{8,32}$")]
Who = Annotated[str | None, Query(max_length=64)]


@dataclass(frozen=True)
class DashboardLink:
    """A dashboard a task wrote, in one environment: our page and Superset's own."""

    title: str
    env: Environment
    page: str
    superset: str


def rollback_link(view: TaskView, user: Principal) -> str | None:
    """/agent, prefilled with «откати выкатку 3f9c2b7e» in the task's environment; None where no
    rollback applies or the role may not roll back. The page never sends it by itself."""
    if not view.undoable or not user.role.allows(Role.engineer):
        return None
    prompt = UI["prompt_rollback"].format(task=view.short)
    env_id = view.target.env.id if view.target.env else ""
    return agent_link(None, None, None, env_id, f"/tasks/{view.id}", prompt)


def _choice(value: str | None, allowed: tuple[str, ...], label: str) -> str | None:
    if not value:
        return None  # the form's «все»
    if value not in allowed:
        raise HTTPException(422, UI["filter_unknown"].format(what=UI[label], value=value[:32]))
    return value


@router.get("/tasks")
async def tasks_page(
    request: Request,
    services: ServicesDep,
    session: SessionDep,
    user: PageUser,
    env_id: str | None = None,
    kind: str | None = None,
    status: str | None = None,
    started_by: Who = None,
) -> HTMLResponse:
    chosen = environment(services, env_id) if env_id else None
    filters = {
        "env_id": chosen.id if chosen else "",
        "kind": _choice(kind, KINDS, "filter_kind") or "",
        "status": _choice(status, STATUSES, "filter_status") or "",
        "started_by": (started_by or "").strip(),
    }
    found = await records.list_tasks(
        session,
        env_id=filters["env_id"] or None,
        status=filters["status"] or None,
        kind=filters["kind"] or None,
        started_by=filters["started_by"] or None,
        limit=LIST_LIMIT,
    )
    return render(
        request,
        "tasks.html",
        user,
        services,
        chosen or environment(services, None),
        tasks=[task_view(record, services.environments) for record in found],
        filters=filters,
        kinds=KINDS,
        statuses=STATUSES,
    )


async def find_task(session: AsyncSession, reference: str) -> TaskRecord:
    """The task with this id, or with the only id that starts so; a 404 (or 409) page else."""
    found = await tasks_named(session, reference)
    if not found:
        raise HTTPException(404, UI["task_absent"].format(task=reference[:8]))
    if len(found) > 1:
        raise HTTPException(409, UI["task_ambiguous"].format(task=reference))
    return found[0]


async def _dashboards_in(
    services: Services, env: Environment, uuids: list[str]
) -> list[DashboardLink]:
    """The task's dashboards as ``env`` has them now (by UUID); none if it does not answer."""
    client = services.superset.client(env.id)
    try:
        rows = await asyncio.wait_for(
            client.list_by_uuid(
                "dashboard",
                uuids,
                columns=["id", "uuid", "dashboard_title", "slug", "published"],
                limit=HISTORY_LIMIT,
            ),
            LOOKUP_TIMEOUT_S,
        )
    except (SupersetError, TimeoutError):
        return []
    links = []
    for row in rows:
        if str(row.get("uuid")) not in uuids:  # only the task's own, whatever the list returned
            continue
        summary = DashboardSummary.from_api(row, superset_url=env.url)
        page = f"/dashboards/{summary.id}?env_id={env.id}"
        links.append(DashboardLink(summary.title, env, page, summary.url))
    return links


@router.get("/tasks/{task_id}")
async def task_page(
    request: Request,
    task_id: TaskRef,
    services: ServicesDep,
    session: SessionDep,
    user: PageUser,
) -> HTMLResponse:
    (view,) = await task_views(session, [await find_task(session, task_id)], services.environments)
    places = [place.env for place in (view.target, view.source) if place and place.env]
    uuids = view.dashboard_uuids[:HISTORY_LIMIT]
    found = await asyncio.gather(*(_dashboards_in(services, env, uuids) for env in places))
    links = [link for per_env in found for link in per_env] if uuids else []
    return render(
        request,
        "task.html",
        user,
        services,
        view.target.env or environment(services, None),
        task=view,
        links=links,
        rollback=rollback_link(view, user),
    )


@dataclass(frozen=True)
class HistoryRow:
    task: TaskView
    rollback: str | None


async def dashboard_history(
    session: AsyncSession, services: Services, user: Principal, uuid: str
) -> list[HistoryRow]:
    """The deploys, migrations and rollbacks that wrote the dashboard ``uuid``, newest first."""
    found = await records.tasks_writing(
        session, f"{DASHBOARD_KEY}{uuid}", kinds=WRITES_DASHBOARDS, limit=HISTORY_LIMIT
    )
    views = await task_views(session, found, services.environments)
    return [HistoryRow(view, rollback_link(view, user)) for view in views]
