"""The scheduled drift watch on the real sandbox: DBOS's scheduler runs it on the configured cron,
its report is a `drift_watch` task's result, and `GET /api/drift` then returns that report (with
the task and its time) without checking again; a tick that finds one still running adds none."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from pathlib import Path

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.sandbox import Sandbox
from sstools.sandbox.seed import DRIFTED_DASHBOARD
from tests.conftest import app_client, make_settings, seed_users

EVERY_5_S = "*/5 * * * * *"  # DBOS's cron takes seconds first, as a sixth field


async def test_the_scheduled_watch_records_its_report_as_a_task(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    settings = make_settings(
        tmp_path, sandbox.settings.environments_file.resolve(), drift_watch_cron=EVERY_5_S
    )
    await seed_users(settings)
    token = issue_token(settings, Principal(username="analyst", role=Role.analyst))
    headers = {"Authorization": f"Bearer {token}"}
    async with app_client(settings) as client:
        # Nothing recorded yet: this first look checks now, and starts the watch (SQLite).
        first = await client.get("/api/drift", headers=headers, timeout=300)
        assert first.status_code == 200, first.text
        assert first.json()["task_id"] is None
        checked_first = datetime.fromisoformat(first.json()["checked_at"])

        # A tick that started while that first check ran may end with an older report: wait for
        # one that started after it, whose report is then the newest known.
        deadline = time.monotonic() + 300
        while True:
            listed = await client.get("/api/tasks", params={"kind": "drift_watch"}, headers=headers)
            assert listed.status_code == 200, listed.text
            tasks = listed.json()
            done = [
                one
                for one in tasks
                if one["status"] == "succeeded"
                and datetime.fromisoformat(one["started_at"]) > checked_first
            ]
            if done:
                break
            assert time.monotonic() < deadline, tasks
            await asyncio.sleep(2)
        # Ticks every 5 s, a check takes longer: the ones that found it running added nothing.
        assert len([one for one in tasks if one["status"] in ("queued", "running")]) <= 1
        watch = done[0]
        assert watch["started_by"] == "sstools"
        assert watch["objects"] == ["проверка расхождений"]

        latest = await client.get("/api/drift", headers=headers)
        report = latest.json()
        assert report["task_id"] in {one["id"] for one in done}
        staging = next(one for one in report["environments"] if one["env_id"] == "staging")
        drifted = [row["title"] for row in staging["dashboards"] if row["state"] != "in_sync"]
        assert DRIFTED_DASHBOARD in drifted  # the sandbox's own drift (see test_drift.py)
