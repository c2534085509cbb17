"""The objects a task wrote stay on its record after its claims go: a dashboard's deploy history
finds them by key, on SQLite and on PostgreSQL (where one is reachable)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sstools.storage import tasks as records
from sstools.storage.db import create_engine, migrate, session_factory
from sstools.storage.models import TaskRecord
from tests.rig import task_record

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'sstools.db'}"
    url: str = request.getfixturevalue("pg_url")
    return url


def record(task_id: str, kind: str, keys: list[str] | None, minutes: int) -> TaskRecord:
    return task_record(
        id=task_id,
        kind=kind,
        objects=["Energy KPIs"],
        object_keys=keys,
        env_id="staging",
        status="queued",
        created_at=T0 + timedelta(minutes=minutes),
    )


async def test_the_keys_outlive_the_claims_and_find_the_writers_newest_first(
    database_url: str,
) -> None:
    migrate(database_url)
    engine = create_engine(database_url)
    key = "dashboard:5731bb99-0d40-471f-a7b5-973ff5b909a3"
    async with session_factory(engine)() as session:
        ended = [
            record("a" * 32, "deploy", [key], 0),
            record("c" * 32, "validation", [key], 3),  # not a writer of the dashboard
            record("d" * 32, "deploy", [f"{key}-copy"], 4),  # a key that merely contains it
            record("e" * 32, "deploy", None, 5),  # a record from before the column
        ]
        for one in ended:
            assert await records.insert_task(session, one, one.object_keys or []) is None
            assert await records.finish_task(session, one.id, "succeeded")  # claims released
        assert await records.claim_holder(session, "staging", [key]) is None
        running = record("b" * 32, "rollback", [key, "dashboard:other"], 2)
        assert await records.insert_task(session, running, running.object_keys or []) is None
        found = await records.tasks_writing(session, key, kinds=("deploy", "rollback"))
        assert [one.id for one in found] == ["b" * 32, "a" * 32]
        assert found[1].object_keys == [key]
    await engine.dispose()
