"""A dashboard's timeline names who wrote each snapshot point: the person who started the
deploy and, where the stage needed a second person, the one who approved it too (issue 33 §6)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sstools.domain.timeline.gather import snapshot_points
from sstools.environments import EnvironmentRegistry
from sstools.storage import tasks as records
from sstools.storage.db import create_engine, migrate, session_factory
from sstools.storage.models import TaskRecord
from tests.rig import task_record

UUID = "5731bb99-0d40-471f-a7b5-973ff5b909a3"
T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def _deploy(task_id: str, minutes: int, approved_by: str | None) -> TaskRecord:
    return task_record(
        id=task_id,
        objects=["Energy KPIs"],
        object_keys=[f"dashboard:{UUID}"],
        env_id="prod",
        started_by="alice",
        approved_by=approved_by,
        status="queued",
        created_at=T0 + timedelta(minutes=minutes),
        result={
            "snapshot": {"branch": "snapshots", "commit": "9a8b7c6d" * 5, "dashboards": [UUID]}
        },
    )


async def test_a_snapshot_point_names_both_people_of_a_two_person_write(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sstools.db'}"
    migrate(url)
    engine = create_engine(url)
    async with session_factory(engine)() as session:
        for one in (_deploy("a" * 32, 0, None), _deploy("b" * 32, 5, "bob")):
            assert await records.insert_task(session, one, one.object_keys or []) is None
            assert await records.finish_task(session, one.id, "succeeded", result=one.result)
        points = await snapshot_points(session, EnvironmentRegistry([]), UUID)
    await engine.dispose()
    assert [point.who for point in points] == ["alice, одобрил(а) bob", "alice"]
