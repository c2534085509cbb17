"""What a deploy or a backup task leaves behind when Superset refuses it or a person cancels it
(issue 32 §7b, §7c), on the real task engine with a fake Superset served over real HTTP: a task's
steps make clients of their own, which no test transport reaches."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.storage import tasks as records
from sstools.tasks import _runtime
from sstools.testing import LiveServer
from sstools.testing.fake_superset import FakeSuperset
from tests.conftest import AuthHeaders
from tests.planted_secrets import LAYOUT, TARGET_DATASET, TARGET_PARAMS, documents
from tests.rig import (
    REPORT_ID,
    report_superset,
    served_with_tasks,
    settings_for_places,
    task_when_ended,
)
from tests.tasks.support import eventually

# How Superset refuses an import whose connection it cannot take: its text names a driver's
# settings and encrypted_extra's keys.
REFUSAL = {
    "message": {
        "databases/Demo.yaml": {
            "encrypted_extra": ["Field may not be null."],
            "extra": {"engine_params": {"connect_args": {"sslkey": ["/etc/pg/client.key"]}}},
        }
    }
}


@pytest.fixture
def source() -> FakeSuperset:
    return report_superset()


@pytest.fixture
def staging() -> Iterator[tuple[FakeSuperset, str]]:
    fake = report_superset()
    with LiveServer(fake.asgi()) as live:
        yield fake, live.url


@pytest.fixture
async def settings(
    tmp_path: Path, source: FakeSuperset, staging: tuple[FakeSuperset, str]
) -> Settings:
    places = [
        ("ss-dev", "ss-dev", "dev", "http://superset.test"),
        ("staging", "staging", "staging", staging[1]),
    ]
    return await settings_for_places(tmp_path, source, places, backup_keep=1)


async def test_a_deploy_superset_refuses_keeps_a_fixed_sentence_with_the_status(
    settings: Settings,
    source: FakeSuperset,
    staging: tuple[FakeSuperset, str],
    auth: AuthHeaders,
) -> None:
    target, _ = staging
    source.assets = documents({"metric": "count", "viz_type": "bar"}, dict(TARGET_DATASET))
    target.assets = documents(dict(TARGET_PARAMS), dict(TARGET_DATASET))
    source.dashboard_fields = target.dashboard_fields = LAYOUT
    target.import_refusal = REFUSAL
    engineer = auth(Role.engineer)
    body = {
        "dashboard_ids": [REPORT_ID],
        "source": {"env_id": "ss-dev"},
        "target_env_id": "staging",
    }
    async with served_with_tasks(settings, source) as (_, client):
        plan = await client.post("/api/deploy/plan", json=body, headers=engineer)
        assert plan.status_code == 200, plan.text
        started = await client.post(
            "/api/deploy", json={**body, "digest": plan.json()["digest"]}, headers=engineer
        )
        assert started.status_code == 202, started.text
        task = await task_when_ended(client, started.json()["id"], engineer)
    assert task["status"] == "failed"
    assert task["error"] == (
        "импорт «Отчёт» не удался: Superset staging ответил ошибкой (HTTP 422); "
        "подробности — в журнале сервера"
    )
    for internal in ("encrypted_extra", "connect_args", "sslkey", "Field may not be null"):
        assert internal not in str(task)


async def test_a_backup_cancelled_right_after_it_started_runs_no_further_step_and_prunes_nothing(
    settings: Settings,
    source: FakeSuperset,
    staging: tuple[FakeSuperset, str],
    auth: AuthHeaders,
) -> None:
    """A cancel writes the task's record, then tells the engine: a backup whose steps are quick
    could verify and prune (keep 1: the only other archive) in between. It must stop."""
    fake, _ = staging
    admin = auth(Role.admin)
    async with served_with_tasks(settings, source) as (app, client):
        first = await client.post("/api/backups", json={"env_id": "staging"}, headers=admin)
        assert (await task_when_ended(client, first.json()["id"], admin))["status"] == "succeeded"
        kept = (await client.get("/api/backups?env_id=staging", headers=admin)).json()["backups"]
        assert len(kept) == 1

        fake.exports_held, fake.exporting = threading.Event(), threading.Event()
        second = await client.post("/api/backups", json={"env_id": "staging"}, headers=admin)
        task_id = second.json()["id"]
        assert await asyncio.to_thread(fake.exporting.wait, 30)  # the export is under way
        async with app.state.services.sessions() as session:  # the cancel's first half
            assert await records.cancel_task(session, task_id, error="отменена пользователем admin")
        fake.exports_held.set()
        task = await task_when_ended(client, task_id, admin)

        async def stopped() -> bool:
            return task_id not in _runtime.active()

        await eventually(stopped)
        after = (await client.get("/api/backups?env_id=staging", headers=admin)).json()["backups"]
    assert task["status"] == "cancelled"
    assert [one["id"] for one in after] == [kept[0]["id"]]  # nothing pruned, nothing added
    progress = task["progress"]
    assert (progress["step"], progress["total"]) == (1, 3)  # it never began verifying
