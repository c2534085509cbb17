"""What a deploy or a backup task leaves behind when Superset refuses it or a person cancels it
(issue 32 §7b, §7c), on the real task engine with a fake Superset served over real HTTP: a task's
steps make clients of their own, which no test transport reaches."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.storage import tasks as records
from sstools.tasks import _runtime
from sstools.testing import LiveServer
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.conftest import AuthHeaders, make_settings, seed_users, write_environments_file
from tests.planted_secrets import LAYOUT, TARGET_DATASET, TARGET_PARAMS, documents
from tests.tasks.support import eventually

DASHBOARD_ID = 3
FINISHED = ("succeeded", "failed", "cancelled")
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


def _fake() -> FakeSuperset:
    return FakeSuperset(
        dashboards=[{"id": DASHBOARD_ID, "dashboard_title": "Отчёт", "published": True}]
    )


@pytest.fixture
def source() -> FakeSuperset:
    return _fake()


@pytest.fixture
def staging() -> Iterator[tuple[FakeSuperset, str]]:
    fake = _fake()
    with LiveServer(fake.asgi()) as live:
        yield fake, live.url


@pytest.fixture
async def settings(
    tmp_path: Path, source: FakeSuperset, staging: tuple[FakeSuperset, str]
) -> Settings:
    env_file = write_environments_file(
        tmp_path,
        [
            {
                "id": env_id,
                "name": env_id,
                "stage": stage,
                "url": url,
                "username": source.username,
                "password_env": "SVC_PASSWORD",
            }
            for env_id, stage, url in (
                ("ss-dev", "dev", "http://superset.test"),
                ("staging", "staging", staging[1]),
            )
        ],
        secrets={"SVC_PASSWORD": source.password},
    )
    made = make_settings(tmp_path, env_file, backup_keep=1)
    await seed_users(made)
    return made


@asynccontextmanager
async def _served(
    settings: Settings, source: FakeSuperset
) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    app = create_app(settings, superset_transport=RoutingTransport(source))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://sstools.test"
        ) as client,
    ):
        yield app, client

        async def idle() -> bool:  # every workflow ended before the engine goes
            return not _runtime.active()

        await eventually(idle)


async def _ended(client: httpx.AsyncClient, task_id: str, headers: dict[str, str]) -> Any:
    async def done() -> bool:
        answer = await client.get(f"/api/tasks/{task_id}", headers=headers)
        return bool(answer.json()["status"] in FINISHED)

    await eventually(done, timeout_s=60)
    return (await client.get(f"/api/tasks/{task_id}", headers=headers)).json()


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
        "dashboard_ids": [DASHBOARD_ID],
        "source": {"env_id": "ss-dev"},
        "target_env_id": "staging",
    }
    async with _served(settings, source) as (_, client):
        plan = await client.post("/api/deploy/plan", json=body, headers=engineer)
        assert plan.status_code == 200, plan.text
        started = await client.post(
            "/api/deploy", json={**body, "digest": plan.json()["digest"]}, headers=engineer
        )
        assert started.status_code == 202, started.text
        task = await _ended(client, started.json()["id"], engineer)
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
    async with _served(settings, source) as (app, client):
        first = await client.post("/api/backups", json={"env_id": "staging"}, headers=admin)
        assert (await _ended(client, first.json()["id"], admin))["status"] == "succeeded"
        kept = (await client.get("/api/backups?env_id=staging", headers=admin)).json()["backups"]
        assert len(kept) == 1

        fake.exports_held, fake.exporting = threading.Event(), threading.Event()
        second = await client.post("/api/backups", json={"env_id": "staging"}, headers=admin)
        task_id = second.json()["id"]
        assert await asyncio.to_thread(fake.exporting.wait, 30)  # the export is under way
        async with app.state.services.sessions() as session:  # the cancel's first half
            assert await records.cancel_task(session, task_id, error="отменена пользователем admin")
        fake.exports_held.set()
        task = await _ended(client, task_id, admin)

        async def stopped() -> bool:
            return task_id not in _runtime.active()

        await eventually(stopped)
        after = (await client.get("/api/backups?env_id=staging", headers=admin)).json()["backups"]
    assert task["status"] == "cancelled"
    assert [one["id"] for one in after] == [kept[0]["id"]]  # nothing pruned, nothing added
    progress = task["progress"]
    assert (progress["step"], progress["total"]) == (1, 3)  # it never began verifying
