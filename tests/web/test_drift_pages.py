"""/api/drift, /drift and the home page's fleet on the faked Superset (ss-dev answers, prod does
not): any role reads the drift, an unknown environment is refused in words, the home page says
versions, drift counts and the dashboards whose latest validation found errors."""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.storage.db import create_engine, session_factory
from sstools.storage.models import DashboardValidation
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.conftest import app_client

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def words_of(page: str) -> str:
    body = page.split("<body", 1)[1].split(">", 1)[1] if "<body" in page else page
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


class Versioned(httpx.AsyncBaseTransport):
    """The fake Superset, answering its health check and ``/version`` as Superset 6.1.0 does."""

    def __init__(self, fake: FakeSuperset) -> None:
        self.routing = RoutingTransport(fake)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.host == "superset.test" and request.url.path == "/health":
            return httpx.Response(200, text="OK")
        if request.url.host == "superset.test" and request.url.path == "/version":
            return httpx.Response(200, json={"version_string": "6.1.0", "branch_name": "main"})
        return await self.routing.handle_async_request(request)


@pytest.fixture
async def api(
    settings: Settings, fake_superset: FakeSuperset, token_for: Callable[[Role], str]
) -> AsyncIterator[httpx.AsyncClient]:
    fake_superset.dashboards = [
        {"id": 3, "dashboard_title": "Отчёт", "published": True, "changed_on_utc": "2026-03-01"},
        {"id": 4, "dashboard_title": "Черновик", "published": False},
    ]
    async with app_client(settings, Versioned(fake_superset)) as client:
        client.cookies.set("sstools_session", token_for(Role.analyst))
        yield client


async def test_any_role_reads_the_drift_and_a_silent_environment_is_said(
    api: httpx.AsyncClient, auth: Callable[[Role], dict[str, str]]
) -> None:
    for role in Role:
        answer = await api.post("/api/drift/check", headers=auth(role))
        assert answer.status_code == 200, answer.text
    report = answer.json()
    by_env = {one["env_id"]: one for one in report["environments"]}
    assert by_env["prod"]["reachable"] is False
    assert by_env["prod"]["source_env_id"] == "ss-dev"
    dev = by_env["ss-dev"]
    assert dev["reachable"] is True
    assert dev["source_env_id"] is None
    # Nothing in git, no upstream: every dashboard of the first stage is in sync.
    assert dev["counts"]["in_sync"] == len(dev["dashboards"]) == 2
    assert {row["state"] for row in dev["dashboards"]} == {"in_sync"}


async def test_an_unknown_environment_is_a_422_naming_the_field_in_words(
    api: httpx.AsyncClient, auth: Callable[[Role], dict[str, str]]
) -> None:
    answer = await api.get("/api/drift", params={"env_id": "nowhere"}, headers=auth(Role.analyst))
    assert answer.status_code == 422
    (error,) = answer.json()["detail"]
    assert error["loc"] == ["query", "env_id"]
    assert "окружения 'nowhere' нет" in error["msg"]
    assert (await api.get("/api/drift")).status_code == 200  # the page's cookie will do
    api.cookies.clear()
    assert (await api.get("/api/drift")).status_code == 401  # nobody signed in


async def test_the_drift_page_says_each_environment_in_words(api: httpx.AsyncClient) -> None:
    await api.get("/api/drift")  # the first report (the page itself never waits for it)
    page = await api.get("/drift")
    assert page.status_code == 200
    words = words_of(page.text)
    assert "Первая стадия: сравнивается только с веткой main в git" in words
    assert "не отвечает: не проверено" in words  # prod
    assert "Расхождений нет" in words  # ss-dev
    one = await api.get("/drift", params={"env_id": "ss-dev"})
    assert 'data-env-id="prod"' not in one.text
    assert (await api.get("/drift", params={"env_id": "nowhere"})).status_code == 404


async def test_the_home_page_shows_versions_drift_and_failed_validations(
    api: httpx.AsyncClient, settings: Settings
) -> None:
    before = words_of((await api.get("/")).text)
    assert "Расхождения не проверялись" in before  # no report yet: the page made none
    assert "Superset 6.1.0" in before  # ss-dev's /version
    assert "Prod Продуктив · ✗ недоступно · версия неизвестна" in before
    assert "Проверок с ошибками нет" in before

    engine = create_engine(settings.database_url)
    async with session_factory(engine)() as session:
        error = {"severity": "error", "message": "запрос графика не выполняется"}
        session.add_all(
            [
                DashboardValidation(
                    env_id="ss-dev",
                    dashboard_id=3,
                    dashboard_uuid="u3",
                    title="Тарифы",
                    task_id="t-old",
                    review="",
                    findings=[],
                    created_at=NOW,
                ),
                DashboardValidation(
                    env_id="ss-dev",
                    dashboard_id=3,
                    dashboard_uuid="u3",
                    title="Тарифы",
                    task_id="t-new",
                    review="",
                    findings=[error, error],
                    created_at=NOW + timedelta(hours=1),
                ),
                DashboardValidation(  # fixed since: its latest run found nothing
                    env_id="ss-dev",
                    dashboard_id=4,
                    dashboard_uuid="u4",
                    title="Починенный",
                    task_id="t-fixed",
                    review="",
                    findings=[],
                    created_at=NOW + timedelta(hours=2),
                ),
                DashboardValidation(
                    env_id="ss-dev",
                    dashboard_id=4,
                    dashboard_uuid="u4",
                    title="Починенный",
                    task_id="t-broken",
                    review="",
                    findings=[error],
                    created_at=NOW,
                ),
            ]
        )
        await session.commit()
    await engine.dispose()

    await api.get("/api/drift")  # no report yet: reading makes the first
    page = await api.get("/")
    words = words_of(page.text)
    assert "Проверки с ошибками Тарифы Разработка · ошибок: 2" in words
    assert "Починенный" not in words
    assert 'href="/dashboards/3?env_id=ss-dev"' in page.text
    assert "Расхождений нет" in words  # ss-dev, from the report just made
    assert 'href="/drift?env_id=ss-dev"' in page.text
