"""A bug (an unhandled exception) fails a person's page as a page, and the API as JSON.

The last-resort handler runs outside every middleware, the web's error pages included: these
tests drive real routes of the real app into one by failing its Superset transport in a way
nothing expects, and read the answer as a browser's navigation and as an API client would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.texts.http import INTERNAL_ERROR
from sstools.web.strings import UI
from tests.conftest import app_client

PAGE = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}  # a browser's navigation
API = {"Accept": "application/json"}
SECRET = "internal detail: SELECT secret FROM vault"


@pytest.fixture
async def crashing_client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The app whose Superset transport raises what no code expects: every read is a 500."""

    def explode(request: httpx.Request) -> httpx.Response:
        raise RuntimeError(SECRET)

    exploding = httpx.MockTransport(explode)
    async with app_client(settings, exploding, raise_app_exceptions=False) as client:
        yield client


def assert_no_internals(response: httpx.Response) -> None:
    assert SECRET not in response.text
    assert "Traceback" not in response.text
    assert "RuntimeError" not in response.text


@pytest.mark.parametrize("path", ["/dashboards/3?env_id=ss-dev", "/dashboards?env_id=ss-dev"])
async def test_a_page_that_crashes_is_the_human_error_page(
    crashing_client: httpx.AsyncClient, token_for: Callable[[Role], str], path: str
) -> None:
    crashing_client.cookies.set("sstools_session", token_for(Role.analyst))
    page = await crashing_client.get(path, headers=PAGE)
    assert page.status_code == 500
    assert page.headers["content-type"].startswith("text/html")
    assert f"<h1>{UI['error_server']}</h1>" in page.text  # every error page's 5xx title
    assert INTERNAL_ERROR.capitalize() in page.text
    assert f'<a href="/dashboards">{UI["error_back"]}</a>' in page.text  # a way back
    assert '{"detail"' not in page.text
    assert_no_internals(page)
    # The headers the middleware would have set: this answer bypassed it.
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["cache-control"] == "no-store"


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/api/dashboards/3?env_id=ss-dev", API),
        ("/api/dashboards/3?env_id=ss-dev", PAGE),  # the API is JSON whatever the browser accepts
        ("/dashboards/3?env_id=ss-dev", API),  # a script reading a page asked for JSON
    ],
)
async def test_anything_but_a_page_navigation_gets_json_detail(
    crashing_client: httpx.AsyncClient,
    token_for: Callable[[Role], str],
    path: str,
    headers: dict[str, str],
) -> None:
    crashing_client.cookies.set("sstools_session", token_for(Role.analyst))
    response = await crashing_client.get(path, headers=headers)
    assert response.status_code == 500
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {"detail": INTERNAL_ERROR}
    assert_no_internals(response)
    assert response.headers["cache-control"] == "no-store"
