"""Docs cannot drift: every API route is documented (the rest: test_docs_against_code.py)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from sstools.auth.roles import Role
from tests.conftest import AuthHeaders

ROOT = Path(__file__).parents[1]


async def test_every_api_route_is_documented(client: httpx.AsyncClient, auth: AuthHeaders) -> None:
    text = (ROOT / "docs" / "api.md").read_text()
    documented = {
        re.sub(r"\{(\w*_)?id\}", "{id}", re.sub(r"\?.*", "", path))
        for path in re.findall(r"`(?:GET|POST|PUT|DELETE) (/api/[^` ]+)", text)
    }
    paths = (await client.get("/openapi.json", headers=auth(Role.analyst))).json()["paths"]
    for path in paths:
        normalized = re.sub(r"\{(\w*_)?id\}", "{id}", path)
        assert normalized in documented, path
