"""Page routes: each renders one template from the same data the domain API serves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from sstools.auth.deps import SESSION_COOKIE
from sstools.auth.tokens import InvalidToken, Principal, verify_token
from sstools.deps import ServicesDep, SessionDep
from sstools.domain.health import dashboard_health
from sstools.domain.reviews import get_review
from sstools.environments import Environment
from sstools.services import Services
from sstools.superset import SupersetError
from sstools.web.strings import UI

templates = Jinja2Templates(directory=str(Path(__file__).with_name("templates")))
STATIC_DIR = Path(__file__).with_name("static")
router = APIRouter(include_in_schema=False)


class LoginRequired(Exception):
    """No valid session cookie: the page redirects to /login and back."""


def page_user(request: Request, services: ServicesDep) -> Principal:
    try:
        return verify_token(services.settings, request.cookies.get(SESSION_COOKIE, ""))
    except InvalidToken as exc:
        raise LoginRequired from exc


PageUser = Annotated[Principal, Depends(page_user)]


def login_redirect(request: Request, exc: Exception) -> Response:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/login?{urlencode({'next': target})}", status_code=303)


def agent_link(
    object_type: str | None, object_id: int | None, name: str | None, env_id: str, route: str
) -> str:
    """/agent with the page's context in the URL (spaces as %20, as the spec's example)."""
    params: dict[str, str] = {}
    if object_type and object_id is not None:
        params |= {"objectType": object_type, "objectId": str(object_id)}
        if name:
            params["objectName"] = name
    params |= {"envId": env_id, "route": route}
    return "/agent?" + urlencode(params, quote_via=quote, safe="/")


def _environment(services: Services, env_id: str | None) -> Environment:
    if env_id is not None and env_id in services.environments:
        return services.environments[env_id]
    return next(iter(services.environments.values()))


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


@router.get("/login")
async def login_page(request: Request, next: str = "/dashboards") -> HTMLResponse:
    safe_next = next if next.startswith("/") and not next.startswith("//") else "/dashboards"
    return templates.TemplateResponse(request, "login.html", {"t": UI, "next": safe_next})


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
    dashboard_id: int,
    services: ServicesDep,
    user: PageUser,
    env_id: str | None = None,
) -> HTMLResponse:
    env = _environment(services, env_id)
    dashboard = await services.superset.client(env.id).get_dashboard(dashboard_id)
    route = f"/dashboards/{dashboard_id}"
    return _render(
        request,
        "dashboard.html",
        user,
        services,
        env,
        dashboard=dashboard,
        health=dashboard_health(env.id, dashboard),
        ask=agent_link("dashboard", dashboard_id, dashboard.title, env.id, route),
    )


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
    dataset_id: int,
    services: ServicesDep,
    session: SessionDep,
    user: PageUser,
    env_id: str | None = None,
) -> HTMLResponse:
    env = _environment(services, env_id)
    dataset = await services.superset.client(env.id).get_dataset(dataset_id)
    review = await get_review(session, env.id, dataset_id)
    route = f"/datasets/{dataset_id}"
    return _render(
        request,
        "dataset.html",
        user,
        services,
        env,
        dataset=dataset,
        review=review,
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
