"""What DBOS stores of a task is JSON, and a pickle forged into its database is never run."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import pickle
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from dbos import DBOS

from sstools.config import Settings
from sstools.tasks import TaskFailed, TaskKind, TaskStatus
from sstools.tasks.serializer import JsonSerializer, RecordedStepError
from tests.tasks.conftest import Database, Served
from tests.tasks.support import eventually, system_engine, task_reaches
from tests.tasks.workflows import write_steps


class _Marker:
    """A pickle that, loaded, creates a file: what a forged row would do to a worker."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.mkdir, (str(self.path),))


async def _finished_task(served: Served, folder: Path) -> str:
    task = await served.tasks.start(
        TaskKind.deploy,
        env_id="ss-dev",
        source="ss-dev",
        objects=["Energy KPIs"],
        object_keys=["dashboard:energy"],
        started_by="engineer",
        workflow=write_steps,
        args=(str(folder), 2, False),
    )
    done = await task_reaches(served.tasks, task.id, TaskStatus.succeeded, TaskStatus.failed)
    assert done.status is TaskStatus.succeeded, done.error

    async def recorded() -> bool:  # DBOS records the output just after the task record
        status = await asyncio.to_thread(DBOS.get_workflow_status, task.id)
        return status is not None and status.status == "SUCCESS"

    await eventually(recorded)
    return task.id


async def test_inputs_and_step_outputs_are_stored_as_json_not_pickles(
    served: Served, folder: Path, settings: Settings, database: Database
) -> None:
    task_id = await _finished_task(served, folder)
    engine = system_engine(settings)
    with engine.connect() as connection:
        status = connection.execute(
            sa.text(
                "select i.inputs, o.output, s.serialization from workflow_status s "
                "join workflow_input i using (workflow_uuid) "
                "join workflow_output o using (workflow_uuid) where s.workflow_uuid = :id"
            ),
            {"id": task_id},
        ).one()
        steps = connection.execute(
            sa.text(
                "select output, serialization from operation_outputs "
                "where workflow_uuid = :id order by function_id"
            ),
            {"id": task_id},
        ).all()
    engine.dispose()
    assert status.serialization == "sstools_json"
    assert json.loads(status.inputs) == {"args": [task_id, str(folder), 2, False], "kwargs": {}}
    assert json.loads(status.output)["steps"] == [1, 2]
    assert [(json.loads(row.output), row.serialization) for row in steps] == [
        (1, "sstools_json"),
        (2, "sstools_json"),
    ]


async def test_a_pickle_forged_into_the_system_database_is_refused_not_run(
    served: Served, folder: Path, settings: Settings, tmp_path: Path, database: Database
) -> None:
    task_id = await _finished_task(served, folder)
    ran = tmp_path / "the-forged-pickle-ran"
    forged = base64.b64encode(pickle.dumps(_Marker(ran))).decode()
    engine = system_engine(settings)
    with engine.begin() as connection:
        connection.execute(
            sa.text("update workflow_output set output = :forged where workflow_uuid = :id"),
            {"forged": forged, "id": task_id},
        )
        connection.execute(
            sa.text(
                "update workflow_status set serialization = 'py_pickle' where workflow_uuid = :id"
            ),
            {"id": task_id},
        )
    engine.dispose()

    # DBOS reads a workflow's output by the serializer its row names: here, pickle.
    found = await asyncio.to_thread(DBOS.list_workflows, workflow_ids=[task_id], load_output=True)
    assert [one.workflow_id for one in found] == [task_id]
    assert not ran.exists()
    with pytest.raises(TypeError, match="refused"):
        await asyncio.to_thread(lambda: DBOS.retrieve_workflow(task_id).get_result())
    assert not ran.exists()


def test_only_plain_data_is_written_and_step_failures_come_back_as_data() -> None:
    serializer = JsonSerializer()
    for value in ({"when": object()}, {1: "a"}, b"bytes", {"__sstools__": "error"}):
        with pytest.raises(TypeError):
            serializer.serialize(value)
    plain = {"args": ("a", 1, 2.5, True, None, ["x"]), "kwargs": {"raw": {"k": "v"}}}
    assert serializer.deserialize(serializer.serialize(plain)) == {
        "args": ["a", 1, 2.5, True, None, ["x"]],
        "kwargs": {"raw": {"k": "v"}},
    }
    failed = serializer.deserialize(
        serializer.serialize(TaskFailed("цель недоступна", {"imported": ["A"]}))
    )
    assert isinstance(failed, TaskFailed)
    assert (failed.reason, failed.result) == ("цель недоступна", {"imported": ["A"]})
    other = serializer.deserialize(serializer.serialize(ConnectionError("refused")))
    assert isinstance(other, RecordedStepError)
    assert (other.type_name, str(other)) == ("ConnectionError", "refused")
