"""Integration fixtures: the real Superset sandbox (brought up if it is not running) and the app."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.sandbox import Sandbox
from tests.conftest import AuthHeaders, app_client, make_settings, seed_users
from tests.integration.deploy_support import (  # noqa: F401  (fixtures)
    deploys,
    restore,
    second_connection,
    superset,
)


@pytest.fixture(scope="session")
async def settings(sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    settings = make_settings(
        tmp_path_factory.mktemp("app"), sandbox.settings.environments_file.resolve()
    )
    await seed_users(settings)
    return settings


@pytest.fixture(scope="session")
async def client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async with app_client(settings) as client:
        yield client


# Dashboards of the seeded sandbox (sstools/sandbox/seed.py), in ss-dev: one archived, one healthy.
ARCHIVE = "Тарифы 2023 (архив)"
HEALTHY = "Отчёт по энергопотреблению"
ENV = "ss-dev"


async def dashboard_id(api: httpx.AsyncClient, auth: AuthHeaders, title: str) -> int:
    """The id in ``ENV`` of the dashboard titled ``title``, as the API lists it."""
    found = await api.get(
        "/api/dashboards", params={"env_id": ENV, "q": title}, headers=auth(Role.analyst)
    )
    return int(next(item["id"] for item in found.json()["items"] if item["title"] == title))
