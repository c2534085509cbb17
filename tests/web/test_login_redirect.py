"""After sign-in the browser goes back only to a path on this site, never to another host."""

from __future__ import annotations

import html
import re

import httpx
import pytest

# Each is read by at least one browser as "another host" (or is not a plain path at all).
BYPASSES = [
    "//evil.example/",
    "/\\evil.example",
    "\\\\evil.example",
    "/\\/evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "/ /evil.example",
    "/\x00/evil.example",
    "/\x0b/evil.example",
    "/\x7f/evil.example",
    "/\u00a0/evil.example",
    "/\u3000/evil.example",
    "/\u2028/evil.example",
    " //evil.example",
    "\t//evil.example",
    "https://evil.example/",
    "https:/evil.example",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "evil.example",
    "./evil",
    "",
    "%2F%2Fevil.example",
    "/" + "a" * 3000,
]

SAME_SITE = [
    "/dashboards",
    "/dashboards/3?env_id=ss-dev",
    "/agent?objectType=dashboard&objectId=3&envId=ss-dev&route=/dashboards/3",
    "/datasets/%2F%2Fevil.example",
]


def _next_of(page: httpx.Response) -> str:
    found = re.search(r'data-next="([^"]*)"', page.text)
    assert found, page.text
    return html.unescape(found.group(1))


@pytest.mark.parametrize("target", BYPASSES, ids=repr)
async def test_login_refuses_a_next_that_leaves_the_site(
    client: httpx.AsyncClient, target: str
) -> None:
    page = await client.get("/login", params={"next": target})
    assert page.status_code == 200
    assert _next_of(page) == "/dashboards"


@pytest.mark.parametrize("target", SAME_SITE)
async def test_login_keeps_a_next_on_this_site(client: httpx.AsyncClient, target: str) -> None:
    page = await client.get("/login", params={"next": target})
    assert _next_of(page) == target


async def test_the_redirect_to_login_round_trips(client: httpx.AsyncClient) -> None:
    redirect = await client.get("/agent?envId=ss-dev&route=/agent")
    assert redirect.status_code == 303
    page = await client.get(redirect.headers["location"])
    assert _next_of(page) == "/agent?envId=ss-dev&route=/agent"
