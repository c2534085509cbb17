"""kill -9 of a server mid-task: on restart the workflow resumes without redoing finished steps,
or — where it cannot — the task ends `failed` with the reason. Never `running` forever."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import psycopg
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from sstools.config import Settings
from sstools.storage.db import create_engine, session_factory
from sstools.storage.tasks import cancel_task, claim_holder
from sstools.tasks import TaskStatus
from tests.tasks.conftest import Database, Worker, task_status, worker_config
from tests.tasks.support import system_engine
from tests.tasks.workflows import gate, written


def _kill_mid_step(
    tmp_path: Path, settings: Settings, folder: Path, workers: list[Worker], workflow: str
) -> str:
    """Start ``workflow`` in a worker, let step 1 finish, kill -9 the worker inside step 2."""
    args = [str(folder), 3, True] if workflow == "write_steps" else [str(folder)]
    worker = Worker(worker_config(tmp_path, settings, {"workflow": workflow, "args": args}))
    workers.append(worker)
    task_id: str = worker.said("started")["task_id"]
    gate(folder, 1).touch()
    deadline = time.monotonic() + 30
    while written(folder) != [1]:
        assert time.monotonic() < deadline, written(folder)
        time.sleep(0.01)
    time.sleep(0.3)  # step 2 has begun (its checkpoint written) and waits for its gate
    worker.kill()
    return task_id


async def test_a_killed_server_resumes_the_task_without_redoing_steps(
    tmp_path: Path, settings: Settings, folder: Path, workers: list[Worker]
) -> None:
    task_id = _kill_mid_step(tmp_path, settings, folder, workers, "write_steps")
    assert await task_status(settings, task_id) == (TaskStatus.running, None)  # as the kill left it

    gate(folder, 2).touch()
    gate(folder, 3).touch()
    restarted = Worker(worker_config(tmp_path, settings))
    workers.append(restarted)
    recovered = restarted.said("recovered")
    spawned_to_app = time.perf_counter() - restarted.began
    idle = restarted.said("idle")
    spawned_to_done = time.perf_counter() - restarted.began
    restarted.finish()
    print(
        f"recovery after kill -9: process start→app up {spawned_to_app:.2f} s "
        f"(app start incl. DBOS launch {recovered['seconds']:.2f} s, launch "
        f"{recovered['launch_seconds'][0]:.2f} s), app up→task done "
        f"{idle['seconds'] - recovered['seconds']:.2f} s, "
        f"process start→done {spawned_to_done:.2f} s"
    )
    assert await task_status(settings, task_id) == (TaskStatus.succeeded, None)
    assert written(folder) == [1, 2, 3]  # step 1 ran once, before the kill


async def test_a_step_that_cannot_resume_ends_the_task_failed_with_the_reason(
    tmp_path: Path, settings: Settings, folder: Path, workers: list[Worker]
) -> None:
    task_id = _kill_mid_step(tmp_path, settings, folder, workers, "fragile")
    for step in (2, 3):
        gate(folder, step).touch()
    restarted = Worker(worker_config(tmp_path, settings))
    workers.append(restarted)
    restarted.finish()
    assert await task_status(settings, task_id) == (
        TaskStatus.failed,
        "прервано перезапуском сервера; шаг 2 из 3 «шаг 2» не завершён",
    )
    assert written(folder) == [1]  # the interrupted step was not run again, nor what follows


def _forget_workflows(database: Database, settings: Settings) -> None:
    """Lose DBOS's system database, as when it was not kept with sstools' own."""
    if database.kind == "sqlite":
        folder = Path(make_url(settings.database_url).database or "").parent
        for path in folder.glob("tasks.sqlite*"):
            path.unlink()
        return
    with psycopg.connect(database.url) as conn:
        conn.execute(f'drop schema "{database.tasks_schema}" cascade')


async def test_a_task_whose_workflow_is_gone_ends_failed_not_running(
    tmp_path: Path, settings: Settings, folder: Path, workers: list[Worker], database: Database
) -> None:
    task_id = _kill_mid_step(tmp_path, settings, folder, workers, "write_steps")
    _forget_workflows(database, settings)
    restarted = Worker(worker_config(tmp_path, settings))
    workers.append(restarted)
    restarted.finish()
    assert await task_status(settings, task_id) == (
        TaskStatus.failed,
        "прервано перезапуском сервера; шаг 2 из 3 «шаг 2» не завершён",
    )
    assert written(folder) == [1]


async def test_a_task_cancelled_then_killed_in_its_step_frees_its_objects_at_the_next_start(
    tmp_path: Path, settings: Settings, folder: Path, workers: list[Worker]
) -> None:
    # Cancelled while in step 2, its claims wait for the step to end; the worker dies instead.
    task_id = _kill_mid_step(tmp_path, settings, folder, workers, "write_steps")
    engine = create_engine(settings.database_url)
    async with session_factory(engine)() as session:
        assert await cancel_task(session, task_id, error="отменена пользователем engineer")
        assert await claim_holder(session, "ss-dev", ["dashboard:energy"]) == task_id
    system = system_engine(settings)
    with system.begin() as connection:  # what DBOS.cancel_workflow records
        connection.execute(
            sa.text("update workflow_status set status = 'CANCELLED' where workflow_uuid = :id"),
            {"id": task_id},
        )
    system.dispose()
    restarted = Worker(worker_config(tmp_path, settings))
    workers.append(restarted)
    restarted.said("recovered")
    deadline = time.monotonic() + 30
    while True:
        async with session_factory(engine)() as session:
            if await claim_holder(session, "ss-dev", ["dashboard:energy"]) is None:
                break
        assert time.monotonic() < deadline, "the claims of the dead cancelled task stay held"
        await asyncio.sleep(0.1)
    restarted.finish()
    await engine.dispose()
    assert await task_status(settings, task_id) == (
        TaskStatus.cancelled,
        "отменена пользователем engineer",
    )
    assert written(folder) == [1]  # nothing ran again
