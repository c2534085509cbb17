"""``GET /api/git/status?env_id=`` exports one dashboard at a time per slot, never all at once."""

from __future__ import annotations

import asyncio

import httpx

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.conftest import AuthHeaders, app_client

EXPORT = "/api/v1/dashboard/export/"


class CountingExports(httpx.AsyncBaseTransport):
    """The fake Superset, counting the exports it is asked for at once."""

    def __init__(self, fake: FakeSuperset) -> None:
        self._inner = RoutingTransport(fake)
        self.running = 0
        self.peak = 0
        self.total = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path != EXPORT:
            return await self._inner.handle_async_request(request)
        self.running += 1
        self.total += 1
        self.peak = max(self.peak, self.running)
        try:
            await asyncio.sleep(0.02)  # an export takes Superset a while: others pile up if let
            return await self._inner.handle_async_request(request)
        finally:
            self.running -= 1

    async def aclose(self) -> None:
        await self._inner.aclose()


async def test_status_of_many_dashboards_never_runs_more_exports_at_once_than_the_bound(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    fake_superset.dashboards.extend(
        {"id": i, "dashboard_title": f"Отчёт {i}", "published": True} for i in range(1, 13)
    )
    transport = CountingExports(fake_superset)
    bounded = settings.model_copy(update={"export_concurrency": 3})
    async with app_client(bounded, transport) as client:
        # Two users ask at once: the bound holds across requests, not only within one.
        answers = await asyncio.gather(
            *(
                client.get(
                    "/api/git/status", params={"env_id": "ss-dev"}, headers=auth(Role.analyst)
                )
                for _ in range(2)
            )
        )
    for answer in answers:
        assert answer.status_code == 200, answer.text
        assert [d["status"] for d in answer.json()["dashboards"]] == ["untracked"] * 12
    assert transport.total == 24
    assert transport.peak == 3  # the bound, and used: the exports still overlap
