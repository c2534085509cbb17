"""/drift never waits for a check (issue 33 §5): the first look shows «Идёт первая проверка» at
once and the check's progress (`GET /api/drift/progress`), and a deploy that succeeded after the
report makes the next look check the environments it wrote (and their downstream) again, in
the background. Superset is the fake, held at the transport to keep a check running."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import timedelta

import httpx
import pytest

from sstools import clock
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing.fake_superset import FakeSuperset
from tests.conftest import app_client
from tests.rig import AnswersHealth, store_rows, task_record, words_of


class Held(httpx.AsyncBaseTransport):
    """The fake Superset, its dashboard lists held until :attr:`go` is set."""

    def __init__(self, fake: FakeSuperset) -> None:
        self.inner = AnswersHealth(fake, version="6.1.0")
        self.go = asyncio.Event()
        self.go.set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/dashboard/":
            await self.go.wait()
        return await self.inner.handle_async_request(request)


@pytest.fixture
async def held(
    settings: Settings, fake_superset: FakeSuperset, token_for: Callable[[Role], str]
) -> AsyncIterator[tuple[httpx.AsyncClient, Held]]:
    fake_superset.dashboards = [
        {"id": 3, "dashboard_title": "Отчёт", "published": True, "changed_on_utc": "2026-03-01"},
    ]
    transport = Held(fake_superset)
    async with app_client(settings, transport) as client:
        client.cookies.set("sstools_session", token_for(Role.analyst))
        yield client, transport


async def _ended(client: httpx.AsyncClient) -> None:
    for _ in range(200):
        if not (await client.get("/api/drift/progress")).json()["running"]:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the check never ended")


async def _deployed_into_dev(settings: Settings, task_id: str) -> None:
    """A deploy into ss-dev that succeeded just now, after the last report's check."""
    succeeded = task_record(
        id=task_id, objects=["Отчёт"], finished_at=clock.now() + timedelta(seconds=1)
    )
    await store_rows(settings, succeeded)


async def test_the_first_drift_page_shows_at_once_and_follows_the_check(
    held: tuple[httpx.AsyncClient, Held],
) -> None:
    client, transport = held
    transport.go.clear()  # Superset does not answer yet: the check cannot end
    page = await asyncio.wait_for(client.get("/drift"), timeout=2)
    assert page.status_code == 200
    words = words_of(page.text)
    assert "Идёт первая проверка" in words
    assert "Перечисляются дашборды окружений" in words
    progress = (await client.get("/api/drift/progress")).json()
    assert progress["running"] is True
    assert progress["env_ids"] is None  # the whole fleet
    transport.go.set()
    await _ended(client)
    done = (await client.get("/api/drift/progress")).json()
    assert done["done"] == done["total"] >= 1
    after = words_of((await client.get("/drift")).text)
    assert "Идёт первая проверка" not in after
    assert "проверено" in after
    assert "Расхождений нет" in after  # ss-dev


async def test_a_deploy_that_succeeded_refreshes_the_drift_of_what_it_wrote(
    held: tuple[httpx.AsyncClient, Held], settings: Settings, fake_superset: FakeSuperset
) -> None:
    client, transport = held
    first = (await client.get("/api/drift")).json()  # no report yet: waits for the first
    (dev,) = [one for one in first["environments"] if one["env_id"] == "ss-dev"]
    assert [row["title"] for row in dev["dashboards"]] == ["Отчёт"]

    fake_superset.dashboards[0]["dashboard_title"] = "Отчёт после выкатки"
    await _deployed_into_dev(settings, "deploy-1")

    transport.go.clear()
    page = await asyncio.wait_for(client.get("/drift"), timeout=2)  # the last report, at once
    words = words_of(page.text)
    assert "Проверяются заново окружения, куда недавно выкатывали: Dev, Prod" in words
    assert "Отчёт после выкатки" not in words
    progress = (await client.get("/api/drift/progress")).json()
    assert progress["running"] is True
    assert progress["env_ids"] == ["ss-dev", "prod"]  # what it wrote, and its downstream
    transport.go.set()
    await _ended(client)
    report = (await client.get("/api/drift", params={"env_id": "ss-dev"})).json()
    assert [row["title"] for row in report["environments"][0]["dashboards"]] == [
        "Отчёт после выкатки"
    ]
    assert report["checked_at"] == first["checked_at"]  # the rest of the report is kept
    assert not (await client.get("/api/drift/progress")).json()["running"]


async def test_the_overview_after_a_deploy_says_its_drift_is_being_checked_never_the_old_counts(
    held: tuple[httpx.AsyncClient, Held], settings: Settings, fake_superset: FakeSuperset
) -> None:
    client, transport = held
    await client.get("/api/drift")  # the first report: no drift in ss-dev
    before = words_of((await client.get("/")).text)
    assert "Расхождения проверяются заново после выкатки" not in before
    await _deployed_into_dev(settings, "deploy-2")

    transport.go.clear()
    page = await asyncio.wait_for(client.get("/"), timeout=2)  # never waits for the check
    words = words_of(page.text)
    assert words.count("Расхождения проверяются заново после выкатки") == 2  # ss-dev and prod
    progress = (await client.get("/api/drift/progress")).json()
    assert progress["running"] is True
    assert progress["env_ids"] == ["ss-dev", "prod"]  # the overview started it
    transport.go.set()
    await _ended(client)
