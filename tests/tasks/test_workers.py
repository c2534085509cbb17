"""Two sstools processes on one PostgreSQL database: a task of a worker killed mid-step is taken
over by the worker still alive — and never while its own worker lives."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import psycopg
import pytest

from sstools.config import Settings
from sstools.tasks import TaskStatus
from tests.tasks.conftest import Database, Worker, task_status, worker_config
from tests.tasks.workflows import gate, written

pytestmark = pytest.mark.postgres


def _executor(database: Database, task_id: str) -> str:
    with psycopg.connect(database.url) as connection:
        row = connection.execute(
            f'select executor_id from "{database.tasks_schema}".workflow_status '  # noqa: S608
            "where workflow_uuid = %s",
            (task_id,),
        ).fetchone()
    assert row is not None
    return str(row[0])


async def test_a_killed_workers_task_is_finished_by_the_live_one_exactly_once(
    tmp_path: Path,
    settings: Settings,
    folder: Path,
    workers: list[Worker],
    database: Database,
) -> None:
    if database.kind != "postgresql":
        pytest.skip("several workers share a PostgreSQL database only")
    doomed = Worker(
        worker_config(
            tmp_path, settings, {"workflow": "write_steps", "args": [str(folder), 3, True]}
        )
    )
    workers.append(doomed)
    task_id: str = doomed.said("started")["task_id"]
    gate(folder, 1).touch()
    deadline = time.monotonic() + 30
    while written(folder) != [1]:
        assert time.monotonic() < deadline, written(folder)
        await asyncio.sleep(0.01)
    owner = _executor(database, task_id)

    survivor = Worker(worker_config(tmp_path, settings))  # finds the task unfinished: stays up
    workers.append(survivor)
    survivor.said("recovered")  # its start-up sweep is done, and left a live worker's task alone
    assert _executor(database, task_id) == owner

    doomed.kill()  # inside step 2, waiting for its gate
    gate(folder, 2).touch()
    gate(folder, 3).touch()
    survivor.said("idle", timeout_s=120)  # its periodic sweep found the dead executor
    survivor.finish()
    assert await task_status(settings, task_id) == (TaskStatus.succeeded, None)
    assert _executor(database, task_id) != owner
    assert written(folder) == [1, 2, 3]  # step 1 not redone, each step once
