"""What every page route shares: the templates, the signed-in user, the page's environment, the
agent link and rendering with the catalogue of words."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote, urlencode

from fastapi import Depends, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from sstools.auth.tokens import Caller, InvalidToken, Principal
from sstools.environments import Environment
from sstools.errors import SstoolsError
from sstools.http.auth import SESSION_COOKIE, resolve_principal
from sstools.http.deps import ServicesDep
from sstools.http.services import Services
from sstools.russian import human_datetime
from sstools.texts import http as http_texts
from sstools.web.strings import UI

_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
_HEX_ID = re.compile(r"\b([0-9a-f]{8})[0-9a-f]{24}\b", re.I)


def short_ids(text: object) -> str:
    """Text people read, with any UUID or 32-hex id cut to its first 8 digits (as they quote a
    task): a last pass over words that came from elsewhere (a task's error, a name)."""
    shortened = _UUID.sub(lambda match: match.group(0)[:8], str(text))
    return _HEX_ID.sub(lambda match: match.group(1), shortened)


templates = Jinja2Templates(directory=str(Path(__file__).with_name("templates")))
templates.env.filters["human_date"] = human_datetime
templates.env.filters["short_ids"] = short_ids
STATIC_DIR = Path(__file__).with_name("static")


class LoginRequired(SstoolsError):
    """No valid session cookie: the page redirects to /login and back."""


async def page_user(request: Request, services: ServicesDep) -> Caller:
    try:
        return await resolve_principal(services, request.cookies.get(SESSION_COOKIE, ""))
    except InvalidToken as exc:
        raise LoginRequired from exc


PageUser = Annotated[Caller, Depends(page_user)]


# A longer query is not carried through the sign-in: the redirect's header must stay small.
_NEXT_QUERY_CHARS = 2048


def login_redirect(request: Request, exc: Exception) -> Response:
    query = request.url.query
    kept = f"?{query}" if query and len(query) <= _NEXT_QUERY_CHARS else ""
    target = request.url.path + kept
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


def environment(services: Services, env_id: str | None) -> Environment:
    """The page's environment: the one asked for, or the first without one. An unknown one is a
    404 saying so: never another environment's object under the asked-for name."""
    if env_id is None:
        return next(iter(services.environments.values()))
    if env_id not in services.environments:
        known = ", ".join(services.environments)
        raise HTTPException(404, http_texts.UNKNOWN_ENVIRONMENT.format(env=env_id, known=known))
    return services.environments[env_id]


def page_environment(services: ServicesDep, env_id: str | None = None) -> Environment:
    """The page's environment, by its ``env_id`` query parameter (:func:`environment`)."""
    return environment(services, env_id)


# Declared after the page's other parameters, it is resolved after them, where its 404 was.
PageEnv = Annotated[Environment, Depends(page_environment)]


def render(
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
