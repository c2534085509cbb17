"""Cancelling a migration into prod and a backup on the real sandbox.

A cancelled migration keeps its report — what was imported, what was not, and the snapshot it
took — so it can be rolled back; a cancelled backup leaves no ``.part`` behind. Prod is put back
afterwards (``restore``).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.sandbox import Sandbox
from sstools.sandbox.seed import DASHBOARDS
from sstools.tasks import _runtime
from tests.conftest import AuthHeaders
from tests.integration.deploy_support import (
    Deploys,
    frozen,
    started_task,
    superset_pid,
)

MIGRATED = [spec.title for spec in DASHBOARDS if not spec.dev_only and spec.published]
PROD_EDIT = "/* prod edit before the cancelled migration */"


async def _stopped(client: httpx.AsyncClient, auth: AuthHeaders, task_id: str) -> dict[str, Any]:
    """The task once its workflow has stopped (its record is `cancelled` before that)."""
    deadline = time.monotonic() + 120
    while task_id in _runtime.active():
        assert time.monotonic() < deadline, "the cancelled workflow never stopped"
        await asyncio.sleep(0.05)
    task: dict[str, Any] = (
        await client.get(f"/api/tasks/{task_id}", headers=auth(Role.analyst))
    ).json()
    return task


async def _in_step(
    client: httpx.AsyncClient, auth: AuthHeaders, task_id: str, step: int
) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        task: dict[str, Any] = (
            await client.get(f"/api/tasks/{task_id}", headers=auth(Role.analyst))
        ).json()
        assert task["status"] in ("queued", "running"), task
        if task["status"] == "running" and (task.get("progress") or {}).get("step", 0) >= step:
            return task
        await asyncio.sleep(0.01)
    raise AssertionError(f"task {task_id} never reached step {step}: {task}")


async def test_a_cancelled_migration_into_prod_keeps_its_report_and_snapshot_for_rollback(
    client: httpx.AsyncClient, auth: AuthHeaders, sandbox: Sandbox, deploys: Deploys
) -> None:
    dev, prod = await deploys.changing("prod")
    for row in await prod.list_all("dashboard", columns=["id", "dashboard_title"]):
        if row["dashboard_title"] in MIGRATED:
            await prod.put_json(f"/api/v1/dashboard/{row['id']}", {"css": PROD_EDIT})
    rows = await dev.list_all("dashboard", columns=["id", "dashboard_title"])
    ids = sorted(int(row["id"]) for row in rows if row["dashboard_title"] in MIGRATED)
    assert len(ids) >= 3
    body = {"dashboard_ids": ids, "source": {"env_id": "ss-dev"}, "target_env_id": "prod"}
    planned = await deploys.plan(body)
    migration = {**body, "digest": planned["digest"]}
    started = await client.post("/api/migrations", json=migration, headers=auth(Role.engineer))
    pid = superset_pid(sandbox, "prod")
    task_id = await started_task(client, deploys.settings, started)

    await _in_step(client, auth, task_id, 2)  # databases checked, taking the snapshot
    with frozen(pid):  # held in the snapshot's export while the person cancels
        cancelled = await client.post(f"/api/tasks/{task_id}/cancel", headers=auth(Role.engineer))
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled"
    done = await _stopped(client, auth, task_id)

    assert done["status"] == "cancelled"
    report = done["result"]
    assert report is not None, done
    assert report["snapshot"]["branch"] == f"snapshots/{task_id}"
    assert report["snapshot"]["dashboards"]  # what prod held before, for the rollback
    imported, pending = report["imported"], report["not_imported"]
    assert imported == [], report  # the cancel came before the import: nothing of it ran
    assert sorted(imported + pending + report["unchanged"]) == sorted(MIGRATED), report
    # The report says what prod really holds: imported ones lost the prod edit, the rest not.
    edited = {}
    for row in await prod.list_all("dashboard", columns=["id", "dashboard_title"]):
        if row["dashboard_title"] in MIGRATED:
            css = (await prod.get_json(f"/api/v1/dashboard/{row['id']}"))["result"]["css"]
            edited[row["dashboard_title"]] = PROD_EDIT in (css or "")
    assert edited == {title: title in pending for title in MIGRATED}, report

    rollback = await deploys.rollback_plan(task_id)  # not «у задачи нет снимка»
    assert rollback["snapshot_commit"] == report["snapshot"]["commit"]


async def test_a_backup_cancelled_during_its_export_leaves_no_part_file(
    client: httpx.AsyncClient, auth: AuthHeaders, settings: Settings
) -> None:
    folder = settings.backup_dir / "ss-dev"
    archives = set(folder.glob("*.zip"))
    started = await client.post("/api/backups", json={"env_id": "ss-dev"}, headers=auth(Role.admin))
    assert started.status_code == 202, started.text
    task_id = started.json()["id"]
    await _in_step(client, auth, task_id, 1)
    refused = await client.post(f"/api/tasks/{task_id}/cancel", headers=auth(Role.engineer))
    assert refused.status_code == 403, refused.text
    cancelled = await client.post(f"/api/tasks/{task_id}/cancel", headers=auth(Role.admin))
    assert cancelled.status_code == 200, cancelled.text
    done = await _stopped(client, auth, task_id)
    assert done["status"] == "cancelled"
    assert (done.get("progress") or {}).get("step") == 1  # it stopped in the export
    assert sorted(path.name for path in folder.glob("*.part")) == []
    assert set(folder.glob("*.zip")) == archives  # and no archive: it was never verified
