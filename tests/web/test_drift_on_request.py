"""A drift check asked for (issue 32 §5): ``POST /api/drift/check`` is the one way to check now —
one check at a time (later callers share it), a fresh-enough report answers at once, a limit per
person (429 in words) — and reading (``GET /api/drift?fresh=true``, ``/drift?fresh=true``) no
longer checks. Superset is the fake; its calls are counted at the transport."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.domain.drift.on_request import DriftOnRequest
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.conftest import AuthHeaders
from tests.tasks.support import eventually

LISTED = ("GET", "/api/v1/dashboard/")  # a check lists each environment's dashboards once


class Held(httpx.AsyncBaseTransport):
    """The fake Superset, whose dashboard lists wait until :attr:`open` is set."""

    def __init__(self, fake: FakeSuperset) -> None:
        self.routing = RoutingTransport(fake)
        self.open = asyncio.Event()
        self.open.set()
        self.waiting = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == LISTED[1] and not self.open.is_set():
            self.waiting += 1
            await self.open.wait()
        return await self.routing.handle_async_request(request)


@pytest.fixture
def transport(fake_superset: FakeSuperset) -> Held:
    fake_superset.dashboards = [{"id": 3, "dashboard_title": "Отчёт", "published": True}]
    return Held(fake_superset)


def _checks(fake: FakeSuperset) -> int:
    return fake.calls.count(LISTED)


@pytest.fixture
def api(settings: Settings, transport: Held) -> Callable[..., Any]:
    """``async with api(**settings)``: the app on these settings, and a client of it."""

    @asynccontextmanager
    async def made(**overrides: Any) -> AsyncIterator[tuple[httpx.AsyncClient, FastAPI]]:
        app = create_app(settings.model_copy(update=overrides), superset_transport=transport)
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://sstools.test"
            ) as client,
        ):
            yield client, app

    return made


async def test_concurrent_check_requests_share_one_fleet_check(
    api: Callable[..., Any], transport: Held, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    async with api() as (client, app):
        transport.open.clear()  # the check holds at its first list until every request waits
        asked = [
            asyncio.ensure_future(client.post("/api/drift/check", headers=auth(role)))
            for role in (*Role, *Role)
        ]

        async def all_waiting() -> bool:
            on_request: DriftOnRequest | None = getattr(app.state, "drift_on_request", None)
            return on_request is not None and on_request.waiting == len(asked)

        await eventually(all_waiting)
        transport.open.set()
        answers = await asyncio.gather(*asked)
    assert [one.status_code for one in answers] == [200] * len(asked)
    assert len({one.json()["checked_at"] for one in answers}) == 1  # one report for all
    assert _checks(fake_superset) == 1  # ss-dev listed once: one check of the fleet


async def test_a_second_request_within_the_freshness_window_checks_nothing(
    api: Callable[..., Any], fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    async with api(drift_fresh_s=600) as (client, _):
        first = await client.post("/api/drift/check", headers=auth(Role.analyst))
        again = await client.post("/api/drift/check", headers=auth(Role.engineer))
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json()["checked_at"] == first.json()["checked_at"]
    assert _checks(fake_superset) == 1


async def test_one_person_over_the_limit_gets_a_429_in_words_and_others_do_not(
    api: Callable[..., Any], fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    async with api(drift_fresh_s=0, drift_check_limit_per_user="2/hour") as (client, _):
        mine = [await client.post("/api/drift/check", headers=auth(Role.analyst)) for _ in range(3)]
        other = await client.post("/api/drift/check", headers=auth(Role.engineer))
    assert [one.status_code for one in mine] == [200, 200, 429]
    refused = mine[-1]
    assert int(refused.headers["Retry-After"]) > 0
    assert refused.json()["detail"].startswith(
        "вы уже запускали проверку расхождений 2 раза за 1 ч — это предел"
    )
    assert other.status_code == 200
    assert _checks(fake_superset) == 3


async def test_reading_with_fresh_true_no_longer_checks(
    api: Callable[..., Any], fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    async with api(drift_fresh_s=0) as (client, _):
        made = await client.post("/api/drift/check", headers=auth(Role.analyst))
        read = await client.get("/api/drift", params={"fresh": "true"}, headers=auth(Role.analyst))
        client.cookies.set("sstools_session", auth(Role.analyst)["Authorization"][7:])
        page = await client.get("/drift", params={"fresh": "true"})
        by_cookie = await client.post("/api/drift/check")  # no CSRF header: another site's form
    assert read.status_code == 200
    assert read.json()["checked_at"] == made.json()["checked_at"]
    assert page.status_code == 200
    assert 'class="button drift-check-now"' in page.text
    assert "fresh=true" not in page.text  # no link checks: the button posts
    assert by_cookie.status_code == 403
    assert _checks(fake_superset) == 1  # only the POST checked
