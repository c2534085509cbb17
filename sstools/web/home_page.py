"""``/``: the fleet at a glance (each environment answering or not, its Superset version, its
drift counts from the latest drift report, the recent tasks with the failed ones first, the
dashboards whose latest validation found errors); ``/settings``: the model in use and the
environments with their addresses. ``/drift`` (its own module) is served from here too."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.personal_tokens import list_tokens
from sstools.domain.drift import EnvironmentDrift
from sstools.domain.drift.on_request import DriftOnRequestDep
from sstools.domain.drift.watch import WATCH_KIND
from sstools.environments import Environment
from sstools.http.deps import ServicesDep, SessionDep
from sstools.http.services import Services
from sstools.storage import tasks as records
from sstools.storage.models import TaskRecord
from sstools.storage.validation import recent_validations
from sstools.superset import versions
from sstools.web import drift_page
from sstools.web._kit import PageEnv, PageUser, agent_link, render
from sstools.web._task_words import TaskView, task_view
from sstools.web.approvals_page import waiting_views
from sstools.web.strings import UI
from sstools.web.superset_entry import bookmarklet

router = APIRouter(include_in_schema=False)
router.include_router(drift_page.router)

# Each environment is asked at once and given this long: a stopped one is said, not waited for.
REACHABILITY_TIMEOUT_S = 1.5
RECENT = 10
FAILED = 5
SCANNED = 200  # the newest tasks read to find the RECENT that are not routine watch ticks
# Validation runs read to find the dashboards whose latest one found errors.
VALIDATIONS_SCANNED = 200


@dataclass(frozen=True)
class EnvironmentState:
    env: Environment
    reachable: bool
    version: str | None = None  # None: Superset did not say
    drift: EnvironmentDrift | None = None


@dataclass(frozen=True)
class FailedValidation:
    title: str
    env: Environment
    dashboard_id: int
    errors: int
    at: datetime


async def _answers(services: Services, env: Environment) -> bool:
    try:
        return await asyncio.wait_for(
            services.superset.client(env.id).health(), REACHABILITY_TIMEOUT_S
        )
    except TimeoutError:
        return False


async def _version(services: Services, env: Environment) -> str | None:
    """The Superset release the environment runs (the client keeps it a while)."""
    try:
        release = await asyncio.wait_for(
            services.superset.client(env.id).release(), REACHABILITY_TIMEOUT_S
        )
    except TimeoutError:
        return None
    return versions.shown(release) if release else None


async def fleet(
    services: Services, drift: dict[str, EnvironmentDrift] | None = None
) -> list[EnvironmentState]:
    envs = list(services.environments.values())
    answers, versions = await asyncio.gather(
        asyncio.gather(*(_answers(services, env) for env in envs)),
        asyncio.gather(*(_version(services, env) for env in envs)),
    )
    return [
        EnvironmentState(env, ok, version if ok else None, (drift or {}).get(env.id))
        for env, ok, version in zip(envs, answers, versions, strict=True)
    ]


async def failed_validations(session: AsyncSession, services: Services) -> list[FailedValidation]:
    """The dashboards whose latest validation found errors, newest first (at most FAILED)."""
    seen: set[tuple[str, int]] = set()
    found: list[FailedValidation] = []
    for row in await recent_validations(session, VALIDATIONS_SCANNED):
        key = (row.env_id, row.dashboard_id)
        if key in seen or row.env_id not in services.environments:
            continue
        seen.add(key)
        errors = sum(1 for one in row.findings if one.get("severity") == "error")
        if errors:
            env = services.environments[row.env_id]
            found.append(FailedValidation(row.title, env, row.dashboard_id, errors, row.created_at))
        if len(found) == FAILED:
            break
    return found


def _routine(record: TaskRecord) -> bool:
    return record.kind == WATCH_KIND and record.status == "succeeded"


@router.get("/")
async def home(
    request: Request,
    services: ServicesDep,
    session: SessionDep,
    user: PageUser,
    checks: DriftOnRequestDep,
    env: PageEnv,
) -> HTMLResponse:
    # Never waits for a check: environments a write made stale are checked in the background
    # and said to be, never shown with the counts from before the write.
    report, rechecking = await checks.latest_and_rechecked(services, session)
    known = report.environments if report else []
    drift = {one.env_id: one for one in known if one.env_id not in rechecking}
    states = await fleet(services, drift)
    # The drift watch's routine ticks (every 15 minutes) would push everything else out; its
    # report is the fleet's drift counts, and a failed tick still shows among the failed.
    latest_tasks = await records.list_tasks(session, env_id=None, status=None, limit=SCANNED)
    recent = [one for one in latest_tasks if not _routine(one)][:RECENT]
    failed = await records.list_tasks(session, env_id=None, status="failed", limit=FAILED)
    views: list[TaskView] = [task_view(one, services.environments) for one in recent]
    failing = [task_view(one, services.environments) for one in failed]
    # What needs attention first: failed tasks, then the rest of the recent ones.
    shown = {view.id for view in failing}
    return render(
        request,
        "home.html",
        user,
        services,
        env,
        fleet=states,
        drift_report=report,
        rechecking=rechecking,
        failed=failing,
        failed_validations=await failed_validations(session, services),
        recent=[view for view in views if view.id not in shown],
        yours=[one for one in await waiting_views(session, services, user) if one.can_approve],
        ask=agent_link(None, None, None, env.id, "/"),
    )


def _without_credentials(url: str | None) -> str | None:
    """The model's address as people may see it: no user, password or query."""
    if not url:
        return None
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path}"


@router.get("/settings")
async def settings_page(
    request: Request,
    services: ServicesDep,
    session: SessionDep,
    user: PageUser,
    env: PageEnv,
) -> HTMLResponse:
    settings = services.settings
    model = (
        UI["model_in_use"].format(model=settings.llm_model)
        if settings.llm_base_url
        else UI["model_none"]
    )
    return render(
        request,
        "settings.html",
        user,
        services,
        env,
        fleet=await fleet(services),
        model=model,
        model_url=_without_credentials(settings.llm_base_url),
        tokens=await list_tokens(session, user.username) or [],
        ask=agent_link(None, None, None, env.id, "/settings"),
        bookmarklet=bookmarklet(str(request.base_url)),
    )
