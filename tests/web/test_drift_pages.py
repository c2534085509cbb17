"""/api/drift, /drift and the home page's fleet on the faked Superset (ss-dev answers, prod does
not): any role reads the drift, an unknown environment is refused in words, the home page says
versions, drift counts and the dashboards whose latest validation found errors."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.storage.models import DashboardValidation
from sstools.testing.fake_superset import FakeSuperset
from tests.conftest import app_client
from tests.rig import AnswersHealth, store_rows, words_of

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def _validation(
    dashboard_id: int, title: str, task_id: str, findings: list[Any], created_at: datetime
) -> DashboardValidation:
    """A validation of ss-dev's dashboard ``dashboard_id`` (its uuid ``u<id>``), with no review."""
    return DashboardValidation(
        env_id="ss-dev",
        dashboard_id=dashboard_id,
        dashboard_uuid=f"u{dashboard_id}",
        title=title,
        task_id=task_id,
        review="",
        findings=findings,
        created_at=created_at,
    )


@pytest.fixture
async def api(
    settings: Settings, fake_superset: FakeSuperset, token_for: Callable[[Role], str]
) -> AsyncIterator[httpx.AsyncClient]:
    fake_superset.dashboards = [
        {"id": 3, "dashboard_title": "Отчёт", "published": True, "changed_on_utc": "2026-03-01"},
        {"id": 4, "dashboard_title": "Черновик", "published": False},
    ]
    async with app_client(settings, AnswersHealth(fake_superset, version="6.1.0")) as client:
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

    error = {"severity": "error", "message": "запрос графика не выполняется"}
    await store_rows(
        settings,
        _validation(3, "Тарифы", "t-old", [], NOW),
        _validation(3, "Тарифы", "t-new", [error, error], NOW + timedelta(hours=1)),
        # fixed since: its latest run found nothing
        _validation(4, "Починенный", "t-fixed", [], NOW + timedelta(hours=2)),
        _validation(4, "Починенный", "t-broken", [error], NOW),
    )

    await api.get("/api/drift")  # no report yet: reading makes the first
    page = await api.get("/")
    words = words_of(page.text)
    assert "Проверки с ошибками Тарифы Разработка · ошибок: 2" in words
    assert "Починенный" not in words
    assert 'href="/dashboards/3?env_id=ss-dev"' in page.text
    assert "Расхождений нет" in words  # ss-dev, from the report just made
    assert 'href="/drift?env_id=ss-dev"' in page.text
