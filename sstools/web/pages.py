"""Page routes: each renders one template from the same data the domain API serves."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, get_args
from urllib.parse import quote, urlsplit

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from sstools.auth.roles import Role
from sstools.domain.datasets import dataset_with_review
from sstools.http.deps import ServicesDep, SessionDep, SupersetId
from sstools.superset import SupersetError, SupersetNotFound
from sstools.web import compare_page, dashboard_page, home_page, task_pages
from sstools.web._kit import (
    STATIC_DIR,
    LoginRequired,
    PageEnv,
    PageUser,
    agent_link,
    environment,
    login_redirect,
    page_user,
    render,
    templates,
)
from sstools.web.strings import SUGGESTIONS, UI

__all__ = [
    "STATIC_DIR",
    "LoginRequired",
    "PageUser",
    "agent_link",
    "login_redirect",
    "page_user",
    "router",
    "templates",
]

router = APIRouter(include_in_schema=False)
router.include_router(home_page.router)
router.include_router(task_pages.router)
router.include_router(compare_page.router)
router.include_router(dashboard_page.router)


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


ListKind = Literal["dashboards", "datasets"]


def _list_page(kind: ListKind) -> Callable[..., Awaitable[HTMLResponse]]:
    """``GET /dashboards`` or ``/datasets``: a searchable list of one environment's objects; an
    unreachable Superset is said, not 500."""

    async def list_page(
        request: Request,
        services: ServicesDep,
        user: PageUser,
        env: PageEnv,
        q: SearchText = None,
    ) -> HTMLResponse:
        client = services.superset.client(env.id)
        search = client.search_dashboards if kind == "dashboards" else client.search_datasets
        error = None
        items: list[Any] = []
        try:
            items = list((await search(q, page_size=100)).items)
        except SupersetError as exc:
            error = exc.message
        return render(
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

    return list_page


for _kind in get_args(ListKind):
    router.add_api_route(f"/{_kind}", _list_page(_kind), methods=["GET"], name=f"{_kind}_page")


@router.get("/datasets/{dataset_id}")
async def dataset_page(
    request: Request,
    dataset_id: SupersetId,
    services: ServicesDep,
    session: SessionDep,
    user: PageUser,
    env: PageEnv,
) -> HTMLResponse:
    try:
        dataset = await dataset_with_review(services.superset.client(env.id), session, dataset_id)
    except SupersetNotFound as exc:
        absent = UI["dataset_absent"].format(id=dataset_id, env=env.name)
        raise HTTPException(404, absent) from exc
    route = f"/datasets/{dataset_id}"
    return render(
        request,
        "dataset.html",
        user,
        services,
        env,
        dataset=dataset,
        review=dataset.review,
        superset_url=f"{env.url}/explore/?datasource_type=table&datasource_id={dataset.id}",
        ask=agent_link("dataset", dataset_id, dataset.name, env.id, route),
    )


@router.get("/agent")
async def agent_page(
    request: Request,
    services: ServicesDep,
    user: PageUser,
    env_id: Annotated[str | None, Query(alias="envId")] = None,
    object_type: Annotated[str | None, Query(alias="objectType")] = None,
    object_id: Annotated[str | None, Query(alias="objectId")] = None,
) -> HTMLResponse:
    env = environment(services, env_id)
    # A task line offers «Откатить…» only to a role that may roll back (the server checks again).
    can_roll_back = user.role.allows(Role.engineer)
    kind = object_type if object_type in SUGGESTIONS else None
    return render(
        request,
        "agent.html",
        user,
        services,
        env,
        can_roll_back=can_roll_back,
        suggestions=SUGGESTIONS[kind],
        # «этот объект» only where the page has one: a general chat names what it can help with.
        placeholder=UI["message_placeholder" if kind else "message_placeholder_general"],
        offline=bool(request.app.state.agent_offline),
        object_link=_object_link(kind, object_id, env.id),
    )


def _object_link(kind: str | None, object_id: str | None, env_id: str) -> str | None:
    """The page the person came from, for a way back: only a well-formed numeric id."""
    if kind is None or object_id is None or not object_id.isdecimal() or len(object_id) > 12:
        return None
    return f"/{kind}s/{int(object_id)}?env_id={quote(env_id)}"
