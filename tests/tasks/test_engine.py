"""The task engine on a real DBOS: lifecycle, progress, cancel, claims — SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.auth.users import add_user, remove_user
from sstools.config import Settings
from sstools.storage import tasks as records
from sstools.storage.models import AuditEntry
from sstools.tasks import (
    Task,
    TaskCancelForbidden,
    TaskConflict,
    TaskFinished,
    TaskKind,
    TaskStatus,
    _runtime,
)
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.tasks.conftest import Served
from tests.tasks.support import eventually, task_reaches
from tests.tasks.workflows import gate, half_done, leaky, write_steps, written


async def _start(
    served: Served,
    folder: Path,
    *,
    env_id: str = "ss-dev",
    keys: tuple[str, ...] = ("dashboard:energy",),
    user: str = "engineer",
    total: int = 3,
) -> Task:
    return await served.tasks.start(
        TaskKind.deploy,
        env_id=env_id,
        source="ss-dev",
        objects=["Energy KPIs"],
        object_keys=list(keys),
        started_by=user,
        workflow=write_steps,
        args=(str(folder), total, True),
    )


async def test_a_task_runs_step_by_step_to_its_result(served: Served, folder: Path) -> None:
    began = time.perf_counter()
    task = await _start(served, folder)
    assert task.status in (TaskStatus.queued, TaskStatus.running)
    assert (task.kind, task.env_id, task.source, task.started_by) == (
        TaskKind.deploy,
        "ss-dev",
        "ss-dev",
        "engineer",
    )
    assert task.objects == ["Energy KPIs"]
    assert task.finished_at is None
    running = await task_reaches(served.tasks, task.id, TaskStatus.running)
    latency = time.perf_counter() - began
    print(f"start→running {latency:.3f} s (DBOS launches {_runtime.launch_seconds})")

    async def at_step(step: int) -> bool:
        progress = (await served.tasks.get(task.id)).progress
        return progress is not None and progress.step == step

    for step in (1, 2, 3):
        await eventually(lambda step=step: at_step(step))  # type: ignore[misc]
        shown = (await served.tasks.get(task.id)).progress
        assert shown is not None
        assert (shown.total, shown.name) == (3, f"шаг {step}")
        assert written(folder) == list(range(1, step))  # the step waits for its gate
        gate(folder, step).touch()

    done = await task_reaches(served.tasks, task.id, TaskStatus.succeeded, TaskStatus.failed)
    assert done.status is TaskStatus.succeeded, done.error
    assert done.result == {"steps": [1, 2, 3], "environments": ["ss-dev", "prod"]}
    assert done.error is None
    assert running.started_at is not None
    assert done.finished_at is not None
    assert done.created_at <= running.started_at <= done.finished_at
    assert written(folder) == [1, 2, 3]

    async with served.app.state.services.sessions() as session:
        audited = (
            await session.execute(
                select(AuditEntry.action, AuditEntry.outcome, AuditEntry.username).where(
                    AuditEntry.action.like("task_%")
                )
            )
        ).all()
    assert [tuple(row) for row in audited] == [
        ("task_started", "ok", "engineer"),
        ("task_finished", "succeeded", "engineer"),
    ]
    # Its claim is released: the same object may be written again.
    again = await _start(served, folder, total=1)
    assert (await task_reaches(served.tasks, again.id, TaskStatus.succeeded)).result


async def test_an_unexpected_failure_stores_its_kind_never_its_text(
    served: Served, folder: Path
) -> None:
    """Every user reads a task's error: a quoted key or URL in an exception must not reach it."""
    secret = "sk-canary-0123456789abcdef"
    task = await served.tasks.start(
        TaskKind.validation,
        env_id="ss-dev",
        source=None,
        objects=["A"],
        object_keys=["dashboard:leaky"],
        started_by="analyst",
        workflow=leaky,
        args=(str(folder), secret),
    )
    done = await task_reaches(served.tasks, task.id, TaskStatus.failed, TaskStatus.succeeded)
    assert done.status is TaskStatus.failed
    assert done.error is not None
    assert "RuntimeError" in done.error
    assert secret not in done.error
    assert "Bearer" not in done.error


async def test_a_failing_task_keeps_its_partial_report(served: Served, folder: Path) -> None:
    task = await served.tasks.start(
        TaskKind.migration,
        env_id="prod",
        source="git:main",
        objects=["A", "B"],
        object_keys=["dashboard:a", "dashboard:b"],
        started_by="engineer",
        workflow=half_done,
        args=(str(folder),),
    )
    done = await task_reaches(served.tasks, task.id, TaskStatus.failed, TaskStatus.succeeded)
    assert done.status is TaskStatus.failed
    assert done.error == "шаг 2 не удался: цель недоступна"
    assert done.result == {"imported": ["A"], "not_imported": ["B"]}
    assert done.progress is not None
    assert done.progress.step == 1
    assert written(folder) == [1]


async def test_cancel_stops_the_steps_that_follow(served: Served, folder: Path) -> None:
    task = await _start(served, folder)
    gate(folder, 1).touch()

    async def in_step_two() -> bool:
        progress = (await served.tasks.get(task.id)).progress
        return progress is not None and progress.step == 2

    await eventually(in_step_two)
    cancelled = await served.tasks.cancel(task.id, "engineer", role=Role.engineer)
    assert cancelled.status is TaskStatus.cancelled
    assert cancelled.error == "отменена пользователем engineer"
    assert cancelled.finished_at is not None
    # Step 2 is under way and ends; step 3 must never start, though its gate is open.
    gate(folder, 2).touch()
    gate(folder, 3).touch()

    async def idle() -> bool:
        return not _runtime.active()

    await eventually(idle)
    await asyncio.sleep(0.5)
    assert written(folder) == [1, 2]
    assert (await served.tasks.get(task.id)).status is TaskStatus.cancelled  # not overwritten
    with pytest.raises(TaskFinished):
        await served.tasks.cancel(task.id, "engineer", role=Role.engineer)
    # Cancelling released the claim.
    assert (await _start(served, folder, total=0)).status in set(TaskStatus)


async def test_a_task_cancelled_before_the_engine_hears_of_it_runs_no_further_step(
    served: Served, folder: Path
) -> None:
    """A cancel writes the record first, then tells DBOS: a short workflow in between (a task
    cancelled right after it started) must stop at its next step all the same."""
    task = await _start(served, folder)

    async def in_step_one() -> bool:
        progress = (await served.tasks.get(task.id)).progress
        return progress is not None and progress.step == 1

    await eventually(in_step_one)
    async with served.app.state.services.sessions() as session:
        assert await records.cancel_task(session, task.id, error="отменена пользователем engineer")
    for step in (1, 2, 3):
        gate(folder, step).touch()

    async def idle() -> bool:
        return not _runtime.active()

    await eventually(idle)
    assert written(folder) == [1]  # the step under way ended; none after it began
    assert (await served.tasks.get(task.id)).status is TaskStatus.cancelled


async def test_an_account_added_again_under_the_same_name_may_not_cancel_the_old_ones_task(
    served: Served, folder: Path
) -> None:
    task = await _start(served, folder, user="engineer")
    async with served.app.state.services.sessions() as session:
        assert await remove_user(session, "engineer")
        await add_user(session, "engineer", Role.engineer, "a-new-persons-password")
    with pytest.raises(TaskCancelForbidden) as refused:
        await served.tasks.cancel(task.id, "engineer", role=Role.engineer)
    assert "прежняя, удалённая учётная запись с именем engineer" in str(refused.value)
    assert (await served.tasks.get(task.id)).status is not TaskStatus.cancelled
    cancelled = await served.tasks.cancel(task.id, "admin", role=Role.admin)
    assert cancelled.status is TaskStatus.cancelled


async def test_a_cancelled_task_holds_its_objects_until_its_step_has_ended(
    served: Served, folder: Path
) -> None:
    # Its step under way still writes: another task on the same object must wait for it.
    task = await _start(served, folder, user="ирина")
    gate(folder, 1).touch()

    async def in_step_two() -> bool:
        progress = (await served.tasks.get(task.id)).progress
        return progress is not None and progress.step == 2

    await eventually(in_step_two)
    cancelled = await served.tasks.cancel(task.id, "ирина", role=Role.engineer)
    assert cancelled.status is TaskStatus.cancelled
    with pytest.raises(TaskConflict) as refused:
        await _start(served, folder, user="пётр", total=0)
    assert refused.value.running.id == task.id
    assert "отменена, но её текущий шаг ещё не закончился" in str(refused.value)

    gate(folder, 2).touch()  # the step ends; the workflow stops before step 3

    async def idle() -> bool:
        return not _runtime.active()

    await eventually(idle)
    second = await _start(served, folder, user="пётр", total=0)
    assert second.started_by == "пётр"
    assert written(folder) == [1, 2]
    gone = await served.tasks.get(task.id)
    assert (gone.status, gone.error) == (TaskStatus.cancelled, "отменена пользователем ирина")


async def test_a_second_writer_of_the_same_object_is_refused(served: Served, folder: Path) -> None:
    first = await _start(served, folder, user="ирина")
    with pytest.raises(TaskConflict) as refused:
        await _start(served, folder, keys=("dashboard:energy", "chart:7"), user="пётр")
    assert refused.value.running.id == first.id
    message = str(refused.value)
    assert first.id in message
    assert "deploy" in message
    assert "ирина" in message
    assert "«Energy KPIs»" in message
    # Another environment, or another object in the same one: no conflict.
    await _start(served, folder, env_id="prod")
    await _start(served, folder, keys=("dashboard:other",))
    assert len(await served.tasks.list(status=TaskStatus.failed)) == 0
    assert len(await served.tasks.list(env_id="ss-dev")) == 2  # the refused one left no record


async def test_of_twenty_parallel_starts_exactly_one_wins(served: Served, folder: Path) -> None:
    outcomes = await asyncio.gather(
        *(_start(served, folder, user=f"user{n}") for n in range(20)), return_exceptions=True
    )
    won = [outcome for outcome in outcomes if isinstance(outcome, Task)]
    refused = [outcome for outcome in outcomes if isinstance(outcome, TaskConflict)]
    assert len(won) == 1, outcomes
    assert len(refused) == 19, outcomes
    assert {conflict.running.id for conflict in refused} == {won[0].id}
    assert [task.id for task in await served.tasks.list()] == [won[0].id]


async def test_a_task_cut_by_a_graceful_stop_is_resumed_at_the_next_start_not_failed(
    settings: Settings, folder: Path
) -> None:
    # Shutting DBOS down under a running step makes that step fail; the task must not be
    # recorded `failed` for it, but finish when the server starts again.
    first = create_app(settings, superset_transport=RoutingTransport(FakeSuperset()))
    async with first.router.lifespan_context(first):
        engine = first.state.services.tasks
        task = await engine.start(
            TaskKind.migration,
            env_id="staging",
            source="ss-dev",
            objects=["A"],
            object_keys=["dashboard:a"],
            started_by="engineer",
            workflow=write_steps,
            args=(str(folder), 3, True),
        )
        gate(folder, 1).touch()

        async def in_step_two() -> bool:
            progress = (await engine.get(task.id)).progress
            return progress is not None and progress.step == 2

        await eventually(in_step_two)
    # The app is gone (DBOS shut down); step 2 now ends into a stopped DBOS.
    gate(folder, 2).touch()
    await asyncio.sleep(0.5)
    gate(folder, 3).touch()

    second = create_app(settings, superset_transport=RoutingTransport(FakeSuperset()))
    async with second.router.lifespan_context(second):
        done = await task_reaches(second.state.services.tasks, task.id, TaskStatus.succeeded)
    assert done.result is not None
    assert done.result["steps"] == [1, 2, 3]
