"""The dashboard page on the real sandbox: how many requests a view sends to Superset, counted
at the transport, and that a view kept fast still sees what moved since the last one."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import AsyncIterator, Callable

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.config import Settings
from tests.browser.conftest import twin
from tests.conftest import app_client
from tests.integration.deploy_support import Superset

MAX_WARM_CALLS = 8  # issue 23 §8: a view made 24, the same export three times among them


class Counting(httpx.AsyncBaseTransport):
    """Every request the app sends to Superset, by port, method and path."""

    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self.sent: Counter[str] = Counter()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent[f"{request.url.port} {request.method} {request.url.path}"] += 1
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()

    def take(self) -> Counter[str]:
        sent, self.sent = self.sent, Counter()
        return sent


@pytest.fixture
async def counted(
    settings: Settings, token_for: Callable[[Role], str]
) -> AsyncIterator[tuple[httpx.AsyncClient, Counting]]:
    transport = Counting()
    async with app_client(settings, transport) as client:
        client.cookies.set("sstools_session", token_for(Role.engineer))
        yield client, transport


def _differs(page: str, env_id: str) -> str:
    row = re.search(rf'<tr data-env-id="{env_id}".*?</tr>', page, re.S)
    assert row is not None, f"no row for {env_id}"
    found = re.search(r'data-differs="(\w+)"', row.group(0))
    assert found is not None
    return found.group(1)


async def test_a_warm_view_asks_superset_at_most_eight_times_and_exports_nothing(
    counted: tuple[httpx.AsyncClient, Counting], superset: Superset
) -> None:
    client, transport = counted
    first = await client.get("/dashboards/10?env_id=ss-dev")
    assert first.status_code == 200
    cold = transport.take()
    # Even cold, the source dashboard is exported once: its git status and both plans share it.
    port = httpx.URL(superset("ss-dev").env.url).port
    assert cold[f"{port} GET /api/v1/dashboard/export/"] == 1, cold

    for _ in range(3):
        page = await client.get("/dashboards/10?env_id=ss-dev")
        assert page.status_code == 200
        warm = transport.take()
        assert sum(warm.values()) <= MAX_WARM_CALLS, warm
        assert not [path for path in warm if "/export/" in path], warm
    assert page.text.count('data-env-id="') == 3  # every environment still has its row


async def test_a_warm_view_sees_a_css_hotfix_and_a_chart_edit_made_in_staging(
    counted: tuple[httpx.AsyncClient, Counting], superset: Superset
) -> None:
    """Kept exports must never be stale: the dashboard moving, or only one of its charts."""
    client, _ = counted
    staging = superset("staging")
    _, staging_id = await twin(superset, "staging")
    dashboard = f"/api/v1/dashboard/{staging_id}"
    css = str((await staging.get_json(dashboard))["result"]["css"] or "")
    charts = (await staging.get_json(f"{dashboard}/charts"))["result"]
    chart = f"/api/v1/chart/{charts[0]['id']}"
    description = (await staging.get_json(chart))["result"].get("description")

    page = (await client.get("/dashboards/10?env_id=ss-dev")).text
    assert _differs(page, "staging") == "false"
    try:
        await staging.put_json(dashboard, {"css": "/* a hotfix made in staging */"})
        page = (await client.get("/dashboards/10?env_id=ss-dev")).text
        assert _differs(page, "staging") == "true"
        await staging.put_json(dashboard, {"css": css})
        page = (await client.get("/dashboards/10?env_id=ss-dev")).text
        assert _differs(page, "staging") == "false"

        await staging.put_json(chart, {"description": "edited in staging only"})
        page = (await client.get("/dashboards/10?env_id=ss-dev")).text
        assert _differs(page, "staging") == "true"  # the dashboard's changed_on did not move
        assert _differs(page, "prod") == "false"
    finally:
        await staging.put_json(dashboard, {"css": css})
        await staging.put_json(chart, {"description": description})
