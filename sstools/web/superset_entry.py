"""«Спросить агента» from Superset itself: ``/agent/from-superset`` lands a person who ran the
bookmarklet (``static/superset_entry.js``) on a Superset dashboard on ``/agent`` with that
dashboard, the environment whose address is the page's, and the filters as they stood.

Every value is the page's word until checked: the environment by the configured addresses, the
id as digits, the filters by their model (their columns again by ``/agent``'s server before a
turn). The bookmarklet itself is made here, with this installation's address written in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated
from urllib.parse import quote, urlsplit

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import RedirectResponse
from pydantic import TypeAdapter, ValidationError

from sstools.environments import Environment, EnvironmentRegistry
from sstools.http.dashboard_filters import MAX_FILTERS, DashboardFilter
from sstools.http.deps import ServicesDep
from sstools.web._kit import PageUser, agent_link
from sstools.web.strings import UI

router = APIRouter(include_in_schema=False)

_SCRIPT = Path(__file__).with_name("static") / "superset_entry.js"
_FILTERS = TypeAdapter(list[DashboardFilter])
_FILTERS_BYTES = 8192


def bookmarklet(sstools_url: str) -> str:
    """The bookmarklet's link (``javascript:…``) for this installation's address."""
    lines = _SCRIPT.read_text().splitlines()
    code = " ".join(line.strip() for line in lines if not line.lstrip().startswith("//"))
    code = code.replace("__SSTOOLS__", json.dumps(sstools_url.rstrip("/")))
    code = code.replace("__NOT_A_DASHBOARD__", json.dumps(UI["entry_not_a_dashboard"]))
    return "javascript:" + quote(code, safe="(){}[]=>:;,.'\"`$!?&|+-*/<>_ ")


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def _environment_at(environments: EnvironmentRegistry, origin: str) -> Environment:
    """The configured environment whose Superset answers at ``origin``; 404 in words if none."""
    for env in environments.values():
        if _origin(env.url) == _origin(origin):
            return env
    raise HTTPException(404, UI["entry_unknown_superset"].format(origin=origin[:200]))


def _filters(raw: str | None) -> list[DashboardFilter]:
    if not raw:
        return []
    if len(raw.encode()) > _FILTERS_BYTES:
        raise HTTPException(422, UI["entry_bad_filters"])
    try:
        filters = _FILTERS.validate_json(raw)
    except ValidationError as exc:
        raise HTTPException(422, UI["entry_bad_filters"]) from exc
    if len(filters) > MAX_FILTERS:
        raise HTTPException(422, UI["entry_bad_filters"])
    return filters


@router.get("/agent/from-superset")
async def from_superset(
    services: ServicesDep,
    user: PageUser,
    superset: Annotated[str, Query(max_length=512)],
    dashboard: Annotated[str, Query(pattern=r"^[0-9]{1,18}$")],
    filters: Annotated[str | None, Query(max_length=_FILTERS_BYTES)] = None,
) -> RedirectResponse:
    """To ``/agent`` on that dashboard of that environment, with the filters as they stood."""
    env = _environment_at(services.environments, superset)
    kept = _filters(filters)
    dashboard_id = int(dashboard)
    target = agent_link("dashboard", dashboard_id, None, env.id, f"/dashboards/{dashboard_id}")
    if kept:
        as_json = json.dumps([one.model_dump(mode="json") for one in kept], ensure_ascii=False)
        target += "&filters=" + quote(as_json, safe="")
    return RedirectResponse(target, status_code=303)
