from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from sstools.config import Settings
from tests.conftest import app_client, make_settings, seed_users, write_environments_file
from tests.unit.fake_superset import FakeSuperset


@pytest.fixture
def fake_superset() -> FakeSuperset:
    return FakeSuperset()


@pytest.fixture
async def settings(tmp_path: Path, fake_superset: FakeSuperset) -> Settings:
    env_file = write_environments_file(
        tmp_path,
        [
            {
                "id": "ss-dev",
                "name": "Dev",
                "stage": "dev",
                "url": "http://superset.test",
                "username": fake_superset.username,
                "password_env": "SVC_PASSWORD",
            },
            # Nothing listens on port 9 (discard): this environment is unreachable.
            {
                "id": "prod",
                "name": "Prod",
                "stage": "prod",
                "url": "http://127.0.0.1:9",
                "username": "svc",
                "password_env": "SVC_PASSWORD",
            },
        ],
        secrets={"SVC_PASSWORD": fake_superset.password},
    )
    settings = make_settings(tmp_path, env_file)
    await seed_users(settings)
    return settings


class _RoutingTransport(httpx.AsyncBaseTransport):
    """The fake answers for superset.test; everything else goes over the real network stack."""

    def __init__(self, fake: FakeSuperset) -> None:
        self._fake = fake.transport()
        self._real = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.host == "superset.test":
            return await self._fake.handle_async_request(request)
        return await self._real.handle_async_request(request)

    async def aclose(self) -> None:
        await self._real.aclose()


@pytest.fixture
async def client(
    settings: Settings, fake_superset: FakeSuperset
) -> AsyncIterator[httpx.AsyncClient]:
    async for client in app_client(settings, _RoutingTransport(fake_superset)):
        yield client
