"""The task engine on SQLite and on PostgreSQL (skipped with the reason when it is absent)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import pytest
from fastapi import FastAPI

from sstools.app import create_app
from sstools.config import Settings
from sstools.tasks import TaskEngine, _runtime
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.conftest import make_settings, seed_users, write_environments_file
from tests.tasks.support import eventually

POSTGRES_URL = os.environ.get(
    "SSTOOLS_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
)


def environments(folder: Path) -> Path:
    fake = FakeSuperset()
    return write_environments_file(
        folder,
        [
            {
                "id": env_id,
                "name": env_id,
                "stage": stage,
                "url": "http://superset.test",
                "username": fake.username,
                "password_env": "SVC_PASSWORD",
            }
            for env_id, stage in (("ss-dev", "dev"), ("prod", "prod"))
        ],
        secrets={"SVC_PASSWORD": fake.password},
    )


@dataclass
class Database:
    url: str
    tasks_schema: str
    kind: str


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """sstools' database and DBOS's schema; on PostgreSQL fresh schemas, dropped after."""
    if request.param == "sqlite":
        yield Database(f"sqlite:///{tmp_path / 'sstools.db'}", "dbos", "sqlite")
        return
    suffix = uuid.uuid4().hex[:10]
    schema, tasks_schema = f"sstools_test_{suffix}", f"dbos_test_{suffix}"
    try:
        with psycopg.connect(POSTGRES_URL, connect_timeout=3) as conn:
            conn.execute(f'create schema "{schema}"')
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable at {POSTGRES_URL}: {exc}".splitlines()[0])
    yield Database(f"{POSTGRES_URL}?options=-csearch_path%3D{schema}", tasks_schema, "postgresql")
    with psycopg.connect(POSTGRES_URL) as conn:
        conn.execute(f'drop schema if exists "{schema}" cascade')
        conn.execute(f'drop schema if exists "{tasks_schema}" cascade')


@pytest.fixture
async def settings(tmp_path: Path, database: Database) -> Settings:
    settings = make_settings(tmp_path, environments(tmp_path)).model_copy(
        update={"database_url": database.url, "tasks_schema": database.tasks_schema}
    )
    await seed_users(settings)
    return settings


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """Where the test workflows write; every gate opens at the end so no thread is left waiting."""
    path = tmp_path / "work"
    path.mkdir()
    yield path
    for step in range(1, 11):
        (path / f"go-{step}").touch()


@dataclass
class Served:
    app: FastAPI
    tasks: TaskEngine
    client: httpx.AsyncClient


@pytest.fixture
async def served(settings: Settings, folder: Path) -> AsyncIterator[Served]:
    app = create_app(settings, superset_transport=RoutingTransport(FakeSuperset()))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://sstools.test"
        ) as client,
    ):
        yield Served(app, app.state.services.tasks, client)
        for step in range(1, 11):  # let every workflow of this test end before DBOS goes
            (folder / f"go-{step}").touch()

        async def idle() -> bool:
            return not _runtime.active()

        await eventually(idle)
