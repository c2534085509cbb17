"""``/``: the fleet at a glance (each environment answering or not, the recent tasks, the failed
ones first); ``/settings``: the model in use and the environments with their addresses."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from sstools.environments import Environment
from sstools.http.deps import ServicesDep, SessionDep
from sstools.http.services import Services
from sstools.storage import tasks as records
from sstools.web._kit import PageUser, agent_link, environment, render
from sstools.web._task_words import TaskView, task_view
from sstools.web.strings import UI

router = APIRouter(include_in_schema=False)

# Each environment is asked at once and given this long: a stopped one is said, not waited for.
REACHABILITY_TIMEOUT_S = 1.5
RECENT = 10
FAILED = 5


@dataclass(frozen=True)
class EnvironmentState:
    env: Environment
    reachable: bool


async def _answers(services: Services, env: Environment) -> bool:
    try:
        return await asyncio.wait_for(
            services.superset.client(env.id).health(), REACHABILITY_TIMEOUT_S
        )
    except TimeoutError:
        return False


async def fleet(services: Services) -> list[EnvironmentState]:
    envs = list(services.environments.values())
    answers = await asyncio.gather(*(_answers(services, env) for env in envs))
    return [EnvironmentState(env, ok) for env, ok in zip(envs, answers, strict=True)]


@router.get("/")
async def home(
    request: Request,
    services: ServicesDep,
    session: SessionDep,
    user: PageUser,
    env_id: str | None = None,
) -> HTMLResponse:
    env = environment(services, env_id)
    states = await fleet(services)
    recent = await records.list_tasks(session, env_id=None, status=None, limit=RECENT)
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
        failed=failing,
        recent=[view for view in views if view.id not in shown],
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
    request: Request, services: ServicesDep, user: PageUser, env_id: str | None = None
) -> HTMLResponse:
    env = environment(services, env_id)
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
        ask=agent_link(None, None, None, env.id, "/settings"),
    )
