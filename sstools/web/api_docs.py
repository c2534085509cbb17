"""``/docs``: Swagger UI from assets we serve ourselves, under the same strict CSP as every page.

FastAPI's own page loads the bundle from a CDN and starts it with an inline script, both of which
the CSP blocks. Here the bundle comes from the pinned ``fastapi-offline`` package and the start-up
is a static script of ours (``static/swagger-init.js``).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

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
async def swagger_ui() -> HTMLResponse:
    return HTMLResponse(_PAGE)
