"""Set-up shared by test modules in several folders, written once: a fake Superset holding the one
dashboard «Отчёт», settings for environments that sign in with one fake's account, the app served
with its task engine (waited on until every workflow ends), waiting for a task to end, rows stored
in the app's database, a task's record, a fake Superset that answers its health check, a page's
words and the context it sends the agent, the ``sstools`` command run as a person runs it, and a
dev environment that does not answer.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from uuid import uuid4

import httpx
from fastapi import FastAPI

from sstools.app import create_app
from sstools.config import Settings
from sstools.storage.db import create_engine, session_factory
from sstools.storage.models import TaskRecord
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


async def store_rows(settings: Settings, *rows: Any) -> None:
    """``rows`` (ORM objects) added to the app's database and committed."""
    engine = create_engine(settings.database_url)
    async with session_factory(engine)() as session:
        session.add_all(rows)
        await session.commit()
    await engine.dispose()


def task_record(**fields: Any) -> TaskRecord:
    """A task as its record is stored: a deploy into ``ss-dev`` the engineer started and that
    succeeded, under a new id, but for ``fields``."""
    values: dict[str, Any] = {
        "id": uuid4().hex,
        "kind": "deploy",
        "workflow": "test",
        "env_id": "ss-dev",
        "started_by": "engineer",
        "status": "succeeded",
    }
    return TaskRecord(**(values | fields))


class AnswersHealth(httpx.AsyncBaseTransport):
    """The fake Superset, which also answers its health check (the fake alone does not), and,
    given a ``version``, says it runs that release."""

    def __init__(self, fake: FakeSuperset, version: str | None = None) -> None:
        self.routing = RoutingTransport(fake)
        if version is not None:
            fake.version = version

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.host == "superset.test" and request.url.path == "/health":
            return httpx.Response(200, text="OK")
        return await self.routing.handle_async_request(request)


def words_of(page: str) -> str:
    """What a person reads of a page: its body's text without tags, white space folded."""
    body = page.split("<body", 1)[1].split(">", 1)[1] if "<body" in page else page
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def page_context(
    object_type: str, object_id: str, env_id: str, name: str | None = None
) -> dict[str, Any]:
    """The UIContext (version 1) an object's page sends with a message: ``/dashboards/10`` for
    dashboard 10; ``name``, where given, as the page shows the object."""
    named = {} if name is None else {"objectName": name}
    return {
        "contextVersion": 1,
        "objectType": object_type,
        "objectId": object_id,
        **named,
        "envId": env_id,
        "route": f"/{object_type}s/{object_id}",
    }


def run_sstools(cwd: Path, environ: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m sstools ARGS`` as a person runs it, in ``cwd`` with ``environ``: its exit
    status and output as text, whatever the status (within two minutes)."""
    return subprocess.run(
        [sys.executable, "-m", "sstools", *args],
        env=environ,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def unanswering_dev_environment(folder: Path) -> Path:
    """An environments file of one dev environment, ``ss-dev``, where nothing answers (port 9,
    discard), its password ``PW`` in a secrets file."""
    return write_environments_file(
        folder,
        [
            {
                "id": "ss-dev",
                "name": "Dev",
                "stage": "dev",
                "url": "http://127.0.0.1:9",
                "username": "svc",
                "password_env": "PW",
            }
        ],
        secrets={"PW": "x"},
    )
