"""Page routes: each renders one template from the same data the domain API serves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import quote, urlencode, urlsplit

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from sstools.auth.roles import Role
from sstools.auth.tokens import InvalidToken, Principal
from sstools.domain.dashboards import dashboard_overview
from sstools.domain.datasets import dataset_with_review
from sstools.domain.placement import DashboardPlacements, dashboard_placements
from sstools.environments import Environment
from sstools.errors import SstoolsError
from sstools.http.auth import SESSION_COOKIE, resolve_principal
from sstools.http.deps import ServicesDep, SessionDep, SupersetId
from sstools.http.services import Services
from sstools.russian import human_datetime
from sstools.superset import SupersetError, SupersetNotFound
from sstools.texts import http as http_texts
from sstools.web.strings import UI

templates = Jinja2Templates(directory=str(Path(__file__).with_name("templates")))
templates.env.filters["human_date"] = human_datetime
STATIC_DIR = Path(__file__).with_name("static")
router = APIRouter(include_in_schema=False)


class LoginRequired(SstoolsError):
    """No valid session cookie: the page redirects to /login and back."""


async def page_user(request: Request, services: ServicesDep) -> Principal:
    try:
        return await resolve_principal(services, request.cookies.get(SESSION_COOKIE, ""))
    except InvalidToken as exc:
        raise LoginRequired from exc


PageUser = Annotated[Principal, Depends(page_user)]


def login_redirect(request: Request, exc: Exception) -> Response:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/login?{urlencode({'next': target})}", status_code=303)


def agent_link(
    object_type: str | None,
    object_id: int | None,
    name: str | None,
    env_id: str,
    route: str,
    prompt: str | None = None,
) -> str:
    """/agent with the page's context in the URL (spaces as %20, as the spec's example).

    ``prompt`` prefills the request box; the page never sends it by itself.
    """
    params: dict[str, str] = {}
    if object_type and object_id is not None:
        params |= {"objectType": object_type, "objectId": str(object_id)}
        if name:
            params["objectName"] = name
    params |= {"envId": env_id, "route": route}
    if prompt:
        params["prompt"] = prompt
    return "/agent?" + urlencode(params, quote_via=quote, safe="/")


def _environment(services: Services, env_id: str | None) -> Environment:
    """The page's environment: the one asked for, or the first without one. An unknown one is a
    404 saying so: never another environment's object under the asked-for name."""
    if env_id is None:
        return next(iter(services.environments.values()))
    if env_id not in services.environments:
        known = ", ".join(services.environments)
        raise HTTPException(404, http_texts.UNKNOWN_ENVIRONMENT.format(env=env_id, known=known))
    return services.environments[env_id]


def _render(
    request: Request,
    template: str,
    user: Principal,
    services: Services,
    env: Environment,
    **context: Any,
) -> HTMLResponse:
    return templates.TemplateResponse(
        request,
        template,
        {
            "t": UI,
            "ui_json": json.dumps(UI, ensure_ascii=False),
            "user": user,
            "env": env,
            "environments": list(services.environments.values()),
            **context,
        },
    )


@router.get("/")
async def home() -> RedirectResponse:
    return RedirectResponse("/dashboards", status_code=303)


DEFAULT_NEXT = "/dashboards"
_MAX_NEXT = 2048


def same_site_path(target: str) -> str:
    """``target`` if it is a path on this site, else the default page.

    Only printable ASCII without spaces or backslashes: browsers read ``/\\evil``, ``/<TAB>/evil``
    and friends as another host, and our own redirects never need them (they percent-encode).
    """
    if not 0 < len(target) <= _MAX_NEXT:
        return DEFAULT_NEXT
    if any(not "!" <= char <= "~" or char == "\\" for char in target):
        return DEFAULT_NEXT
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not parts.path.startswith("/") or target.startswith("//"):
        return DEFAULT_NEXT
    return target


@router.get("/login")
async def login_page(request: Request, next: str = DEFAULT_NEXT) -> HTMLResponse:
    return templates.TemplateResponse(
        request, "login.html", {"t": UI, "next": same_site_path(next)}
    )


SearchText = Annotated[str | None, Query(max_length=200)]


async def _list_page(
    request: Request,
    services: Services,
    user: PageUser,
    env_id: str | None,
    q: str | None,
    kind: Literal["dashboards", "datasets"],
) -> HTMLResponse:
    """A searchable list of one environment's objects; an unreachable Superset is said, not 500."""
    env = _environment(services, env_id)
    client = services.superset.client(env.id)
    search = client.search_dashboards if kind == "dashboards" else client.search_datasets
    error = None
    items: list[Any] = []
    try:
        items = list((await search(q, page_size=100)).items)
    except SupersetError as exc:
        error = exc.message
    return _render(
        request,
        f"{kind}.html",
        user,
        services,
        env,
        items=items,
        q=q or "",
        error=error,
        ask=agent_link(None, None, None, env.id, f"/{kind}"),
    )


@router.get("/dashboards")
async def dashboards_page(
    request: Request,
    services: ServicesDep,
    user: PageUser,
    env_id: str | None = None,
    q: SearchText = None,
) -> HTMLResponse:
    return await _list_page(request, services, user, env_id, q, "dashboards")


@router.get("/dashboards/{dashboard_id}")
async def dashboard_page(
    request: Request,
    dashboard_id: SupersetId,
    services: ServicesDep,
    user: PageUser,
    env_id: str | None = None,
) -> HTMLResponse:
    env = _environment(services, env_id)
    try:
        overview = await dashboard_overview(
            services.superset.client(env.id), services.git, dashboard_id, services.sessions
        )
    except SupersetNotFound as exc:
        absent = UI["dashboard_absent"].format(id=dashboard_id, env=env.name)
        raise HTTPException(404, absent) from exc
    dashboard = overview.dashboard
    route = f"/dashboards/{dashboard_id}"
    # The health above already exported this dashboard for its git status: not a second time.
    placements = await _placements_or_none(
        services, env, dashboard_id, {env.id: overview.health.git_status}
    )

    def ask(prompt: str | None = None) -> str:
        return agent_link("dashboard", dashboard_id, dashboard.title, env.id, route, prompt)

    may_deploy = user.role.allows(Role.engineer)  # no «Развернуть…» for a role it would refuse
    actions = {
        row.env_id: {
            "deploy": ask(UI["prompt_deploy"].format(target=row.name)) if may_deploy else None,
            "compare": ask(UI["prompt_compare"].format(source=env.name, target=row.name)),
        }
        for row in (placements.environments if placements else [])
        if row.env_id != env.id
    }
    return _render(
        request,
        "dashboard.html",
        user,
        services,
        env,
        dashboard=dashboard,
        health=overview.health,
        placements=placements,
        actions=actions,
        ask=ask(),
    )


async def _placements_or_none(
    services: Services, env: Environment, dashboard_id: int, known_git_status: dict[str, str]
) -> DashboardPlacements | None:
    """Where the dashboard lives; None (the table says so) if its environment stopped answering."""
    try:
        return await dashboard_placements(
            services.superset,
            list(services.environments.values()),
            services.git,
            services.superset.client(env.id),
            dashboard_id,
            known_git_status,
        )
    except SupersetError:
        return None


@router.get("/datasets")
async def datasets_page(
    request: Request,
    services: ServicesDep,
    user: PageUser,
    env_id: str | None = None,
    q: SearchText = None,
) -> HTMLResponse:
    return await _list_page(request, services, user, env_id, q, "datasets")


@router.get("/datasets/{dataset_id}")
async def dataset_page(
    request: Request,
    dataset_id: SupersetId,
    services: ServicesDep,
    session: SessionDep,
    user: PageUser,
    env_id: str | None = None,
) -> HTMLResponse:
    env = _environment(services, env_id)
    try:
        dataset = await dataset_with_review(services.superset.client(env.id), session, dataset_id)
    except SupersetNotFound as exc:
        absent = UI["dataset_absent"].format(id=dataset_id, env=env.name)
        raise HTTPException(404, absent) from exc
    route = f"/datasets/{dataset_id}"
    return _render(
        request,
        "dataset.html",
        user,
        services,
        env,
        dataset=dataset,
        review=dataset.review,
        ask=agent_link("dataset", dataset_id, dataset.name, env.id, route),
    )


@router.get("/settings")
async def settings_page(
    request: Request, services: ServicesDep, user: PageUser, env_id: str | None = None
) -> HTMLResponse:
    env = _environment(services, env_id)
    return _render(
        request,
        "settings.html",
        user,
        services,
        env,
        ask=agent_link(None, None, None, env.id, "/settings"),
    )


@router.get("/agent")
async def agent_page(
    request: Request,
    services: ServicesDep,
    user: PageUser,
    env_id: Annotated[str | None, Query(alias="envId")] = None,
) -> HTMLResponse:
    env = _environment(services, env_id)
    return _render(request, "agent.html", user, services, env)
