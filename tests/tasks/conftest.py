"""The task engine on SQLite and on PostgreSQL (``pg_url``: skipped with the reason when absent).

Also the worker processes (``python -m tests.tasks.worker``) the recovery and takeover tests kill.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from sstools.app import create_app
from sstools.config import Settings
from sstools.storage.db import create_engine, session_factory
from sstools.storage.tasks import get_task
from sstools.tasks import TaskEngine, TaskStatus, _runtime
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.conftest import make_settings, seed_users, write_environments_file
from tests.tasks.support import eventually


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
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Database:
    """sstools' database and DBOS's schema; on PostgreSQL a fresh database (``pg_url``).

    DBOS's schema there is not the default one, so ``SSTOOLS_TASKS_SCHEMA`` is exercised too.
    """
    if request.param == "sqlite":
        return Database(f"sqlite:///{tmp_path / 'sstools.db'}", "dbos", "sqlite")
    return Database(request.getfixturevalue("pg_url"), "dbos_test", "postgresql")


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


ROOT = Path(__file__).parents[2]


class Worker:
    """``python -m tests.tasks.worker``: the real app in a process of its own."""

    def __init__(self, config: Path) -> None:
        self.began = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.tasks.worker", str(config)],
            cwd=ROOT,
            env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def said(self, event: str, timeout_s: float = 60.0) -> dict[str, Any]:
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise AssertionError(f"worker exited ({self.process.wait()}) before {event!r}")
            message: dict[str, Any] = json.loads(line)
            if message["event"] == event:
                return message
        raise AssertionError(f"no {event!r} within {timeout_s} s")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        assert self.process.wait(10) == -signal.SIGKILL

    def finish(self) -> float:
        assert self.process.wait(60) == 0
        return time.perf_counter() - self.began


@pytest.fixture
def workers(tmp_path: Path, settings: Settings) -> Iterator[list[Worker]]:
    """The worker processes a test starts; each still alive at the end is killed."""
    started: list[Worker] = []
    yield started
    for worker in started:
        if worker.process.poll() is None:
            worker.kill()
        assert worker.process.stdout is not None
        worker.process.stdout.close()


def worker_config(tmp_path: Path, settings: Settings, start: dict[str, Any] | None = None) -> Path:
    """A worker's settings file: its database, files and, given ``start``, a task to start."""
    fields = ("database_url", "environments_file", "checkpoints_file", "git_dir", "tasks_schema")
    config: dict[str, Any] = {"settings": {name: str(getattr(settings, name)) for name in fields}}
    config["settings"]["llm_base_url"] = None
    if start is not None:
        config["start"] = start
    path = tmp_path / f"worker-{time.monotonic_ns()}.json"
    path.write_text(json.dumps(config))
    return path


async def task_status(settings: Settings, task_id: str) -> tuple[TaskStatus, str | None]:
    """The task's status and error, as sstools' own table records them."""
    engine = create_engine(settings.database_url)
    async with session_factory(engine)() as session:
        record = await get_task(session, task_id)
    await engine.dispose()
    assert record is not None
    return TaskStatus(record.status), record.error
