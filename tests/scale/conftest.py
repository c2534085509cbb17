"""Two real ``sstools serve`` processes on one fresh PostgreSQL database, a fake Superset on HTTP.

Skipped with the reason where PostgreSQL is not reachable (``postgres_server``, tests/conftest.py);
the database lives for the module, so it is made here with the same ``fresh_database``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from sstools.testing.fake_superset import FakeSuperset
from sstools.testing.fleet import (
    Fleet,
    SupersetOverHttp,
    Worker,
    environments_file,
    fresh_database,
)

pytestmark = pytest.mark.postgres


@dataclass
class Side:
    """One worker as a client sees it."""

    worker: Worker
    client: httpx.AsyncClient
    headers: dict[str, str]

    async def conversation(self) -> str:
        response = await self.client.post("/api/agent/conversations", headers=self.headers)
        assert response.status_code == 201, response.text
        conversation_id: str = response.json()["id"]
        return conversation_id

    async def send(
        self, conversation_id: str, text: str, uicontext: dict[str, Any]
    ) -> httpx.Response:
        return await self.client.post(
            f"/api/agent/conversations/{conversation_id}/messages",
            json={"text": text, "uicontext": uicontext},
            headers=self.headers,
        )

    async def decide(self, conversation_id: str, confirmation_id: str) -> httpx.Response:
        return await self.client.post(
            f"/api/agent/conversations/{conversation_id}/confirmations/{confirmation_id}",
            json={"decision": "approve"},
            headers=self.headers,
        )


@dataclass
class Pair:
    a: Side
    b: Side
    fleet: Fleet
    superset: SupersetOverHttp

    @property
    def executed_sql(self) -> list[str]:
        return self.superset.fake.executed_sql


@dataclass
class _Running:
    fleet: Fleet
    superset: SupersetOverHttp
    headers: dict[str, str]


@pytest.fixture(scope="module")
def running(postgres_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Running]:
    fake = FakeSuperset(
        dashboards=[
            {"id": i, "dashboard_title": f"Дашборд {i}", "published": True} for i in range(1, 8)
        ]
    )
    folder: Path = tmp_path_factory.mktemp("scale")
    with ExitStack() as stack:
        url = stack.enter_context(fresh_database())
        superset = stack.enter_context(SupersetOverHttp(fake))
        # One person's prod card across workers (the second approver has its own tests); no
        # drift watch: each worker would start DBOS for it.
        one_approval = {"SSTOOLS_APPROVALS_PROD": "1", "SSTOOLS_DRIFT_WATCH_CRON": ""}
        fleet = Fleet(
            url, folder, environments_file(folder, superset.url, fake), extra_env=one_approval
        )
        stack.callback(fleet.stop)
        fleet.add_user("engineer")
        fleet.start(2)
        yield _Running(fleet, superset, fleet.login("engineer"))


@pytest.fixture
async def pair(running: _Running) -> AsyncIterator[Pair]:
    """Both workers up (a test that killed one gets it back), the fake's record cleared."""
    for worker in running.fleet.members:
        if not worker.alive():
            running.fleet.restart(worker)
    running.superset.release()
    running.superset.fake.executed_sql.clear()
    a, b = running.fleet.members[:2]
    async with (
        httpx.AsyncClient(base_url=a.url, timeout=30) as client_a,
        httpx.AsyncClient(base_url=b.url, timeout=30) as client_b,
    ):
        yield Pair(
            Side(a, client_a, running.headers),
            Side(b, client_b, running.headers),
            running.fleet,
            running.superset,
        )
    running.superset.release()
