"""``/docs`` and ``/openapi.json``: the API's description, for signed-in users only (as the API).

Swagger UI comes from assets we serve ourselves, under the same strict CSP as every page:
FastAPI's own page loads the bundle from a CDN and starts it with an inline script, both of which
the CSP blocks. Here the bundle comes from the pinned ``fastapi-offline`` package and the start-up
is a static script of ours (``static/swagger-init.js``). The page fetches the schema with the
browser's session, like every other call it makes.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from sstools.http.auth import CurrentUser
from sstools.web._kit import PageUser

SWAGGER_UI_DIR = Path(str(files("fastapi_offline") / "static"))

router = APIRouter(include_in_schema=False)

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>sstools — API</title>
<link rel="icon" href="/static/swagger-ui/favicon.png">
<link rel="stylesheet" href="/static/swagger-ui/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-openapi-url="/openapi.json"></div>
<script src="/static/swagger-ui/swagger-ui-bundle.js"></script>
<script src="/static/swagger-init.js"></script>
</body>
</html>
"""


@router.get("/docs")
async def swagger_ui(user: PageUser) -> HTMLResponse:
    return HTMLResponse(_PAGE)


@router.get("/openapi.json")
async def openapi_schema(request: Request, user: CurrentUser) -> dict[str, Any]:
    """The schema FastAPI builds (once, then kept), behind the API's own sign-in."""
    schema: dict[str, Any] = request.app.openapi()
    return schema
