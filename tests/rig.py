"""Set-up shared by test modules in several folders, written once: a fake Superset holding the one
dashboard «Отчёт», settings for environments that sign in with one fake's account, the app served
with its task engine (waited on until every workflow ends), and waiting for a task to end.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from sstools.app import create_app
from sstools.config import Settings
from sstools.tasks import _runtime
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.conftest import make_settings, seed_users, write_environments_file
from tests.tasks.support import eventually

REPORT_ID = 3  # the id of «Отчёт», the dashboard of :func:`report_superset`
FINISHED = ("succeeded", "failed", "cancelled")

# One environment: (id, name, stage, url).
Place = tuple[str, str, str, str]


def report_superset() -> FakeSuperset:
    """A fake Superset holding one published dashboard, «Отчёт» (id ``REPORT_ID``)."""
    return FakeSuperset(
        dashboards=[{"id": REPORT_ID, "dashboard_title": "Отчёт", "published": True}]
    )


async def settings_for_places(
    tmp_path: Path, fake: FakeSuperset, places: Iterable[Place], **overrides: object
) -> Settings:
    """Settings on a seeded database (one user per role) for ``places``, each signing in with
    ``fake``'s service account (its password as ``SVC_PASSWORD`` in a secrets file)."""
    env_file = write_environments_file(
        tmp_path,
        [
            {
                "id": env_id,
                "name": name,
                "stage": stage,
                "url": url,
                "username": fake.username,
                "password_env": "SVC_PASSWORD",
            }
            for env_id, name, stage, url in places
        ],
        secrets={"SVC_PASSWORD": fake.password},
    )
    made = make_settings(tmp_path, env_file, **overrides)
    await seed_users(made)
    return made


@asynccontextmanager
async def served_with_tasks(
    settings: Settings, source: FakeSuperset
) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    """The app (``ss-dev`` on ``source`` at the transport) and an ASGI client; on leaving, waits
    until every workflow has ended before the task engine goes."""
    app = create_app(settings, superset_transport=RoutingTransport(source))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://sstools.test"
        ) as client,
    ):
        yield app, client

        async def idle() -> bool:
            return not _runtime.active()

        await eventually(idle)


async def task_when_ended(client: httpx.AsyncClient, task_id: str, headers: dict[str, str]) -> Any:
    """``GET /api/tasks/{task_id}`` once the task has finished (within a minute)."""

    async def done() -> bool:
        answer = await client.get(f"/api/tasks/{task_id}", headers=headers)
        return bool(answer.json()["status"] in FINISHED)

    await eventually(done, timeout_s=60)
    return (await client.get(f"/api/tasks/{task_id}", headers=headers)).json()
