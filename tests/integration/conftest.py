"""Integration fixtures: the real Superset sandbox (brought up if it is not running) and the app."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from sstools.config import Settings
from sstools.sandbox import Sandbox
from tests.conftest import app_client, make_settings, seed_users
from tests.integration.deploy_support import restore, superset  # noqa: F401  (fixtures)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
async def settings(sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    settings = make_settings(
        tmp_path_factory.mktemp("app"), sandbox.settings.environments_file.resolve()
    )
    await seed_users(settings)
    return settings


@pytest.fixture(scope="session")
async def client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    async for client in app_client(settings):
        yield client
