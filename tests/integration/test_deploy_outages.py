"""A migration that meets an outage: the server killed with SIGKILL, or the target stopped.

Either way the task never stays «running»: a restarted server resumes it from its last finished
step, and a target that dies in the middle of the import ends it `failed`, no dashboard
reported imported — they land in one transaction: the target holds all of them or none.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.config import Settings
from sstools.sandbox import Sandbox
from sstools.sandbox.seed import DASHBOARDS
from sstools.testing import free_port
from tests.conftest import AuthHeaders, make_settings, seed_users
from tests.integration.deploy_support import (
    Restore,
    Superset,
    frozen,
    superset_pid,
    wait_for_task,
)

JWT_SECRET = "outage-tests-secret-" + "x" * 32


# The released dashboards whose charts all import: not the archive, whose chart's dataset is
# gone (a deploy would drop that chart from staging's copy, and nothing could put it back).
MIGRATED = [spec.title for spec in DASHBOARDS if not spec.dev_only and spec.published]


async def _released_ids(superset: Superset) -> list[int]:
    """Dev's ids of the migrated dashboards, in id order."""
    rows = await superset("ss-dev").list_all("dashboard", columns=["id", "dashboard_title"])
    return sorted(int(row["id"]) for row in rows if row["dashboard_title"] in MIGRATED)


async def _make_staging_differ(superset: Superset) -> None:
    """Give staging's copies a local edit, so a migration has every one of them to import."""
    staging = superset("staging")
    for row in await staging.list_all("dashboard", columns=["id", "dashboard_title"]):
        if row["dashboard_title"] in MIGRATED:
            await staging.put_json(f"/api/v1/dashboard/{row['id']}", {"css": "/* staging edit */"})


async def _start_migration(
    http: httpx.AsyncClient, headers: dict[str, str], ids: list[int]
) -> dict[str, Any]:
    body = {"dashboard_ids": ids, "source": {"env_id": "ss-dev"}, "target_env_id": "staging"}
    planned = await http.post("/api/deploy/plan", json=body, headers=headers)
    assert planned.status_code == 200, planned.text
    assert planned.json()["dashboards_changed"] == len(ids)
    started = await http.post(
        "/api/migrations", json={**body, "digest": planned.json()["digest"]}, headers=headers
    )
    assert started.status_code == 202, started.text
    task: dict[str, Any] = started.json()
    return task


async def _at_import(http: httpx.AsyncClient, headers: dict[str, str], task_id: str) -> Any:
    """The task once its import step has begun (step 1 checks the databases), or has ended."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        task: dict[str, Any] = (await http.get(f"/api/tasks/{task_id}", headers=headers)).json()
        progress = task.get("progress") or {}
        if task["status"] != "running" or progress.get("step", 0) > 1:
            return task
        await asyncio.sleep(0.01)
    raise AssertionError("the migration never got that far")


async def _staging_css(superset: Superset) -> dict[str, str]:
    rows = await superset("staging").list_all("dashboard", columns=["dashboard_title", "css"])
    return {row["dashboard_title"]: row.get("css") or "" for row in rows}


class Server:
    """``sstools serve`` in its own process group, so SIGKILL takes it down at once."""

    def __init__(self, settings: Settings, port: int, log: Path) -> None:
        env = {
            key: value for key, value in os.environ.items() if not key.startswith("SSTOOLS_")
        } | {
            "SSTOOLS_DATABASE_URL": settings.database_url,
            "SSTOOLS_ENVIRONMENTS_FILE": str(settings.environments_file),
            "SSTOOLS_GIT_DIR": str(settings.git_dir),
            "SSTOOLS_CHECKPOINTS_FILE": str(settings.checkpoints_file),
            "SSTOOLS_JWT_SECRET": JWT_SECRET,
            "SSTOOLS_LOG_LEVEL": "WARNING",
        }
        self.url = f"http://127.0.0.1:{port}"
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "sstools", "serve", "--port", str(port)],
                env=env,
                stdout=out,
                stderr=out,
                start_new_session=True,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise AssertionError(f"the server did not start; see {log}")

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)


@pytest.fixture
def served(sandbox: Sandbox, tmp_path: Path) -> Iterator[tuple[Settings, list[Server]]]:
    settings = make_settings(
        tmp_path, sandbox.settings.environments_file.resolve(), jwt_secret=JWT_SECRET
    )
    asyncio.run(seed_users(settings))
    servers: list[Server] = []
    yield settings, servers
    for server in servers:
        server.stop()


async def test_a_migration_killed_with_sigkill_completes_after_a_restart(
    served: tuple[Settings, list[Server]],
    sandbox: Sandbox,
    superset: Superset,
    restore: Restore,
    tmp_path: Path,
) -> None:
    settings, servers = served
    await restore("staging")
    await _make_staging_differ(superset)
    ids = await _released_ids(superset)
    headers = {
        "Authorization": "Bearer "
        + issue_token(settings, Principal(username="engineer", role=Role.engineer))
    }
    port = free_port()
    servers.append(Server(settings, port, tmp_path / "server.log"))
    pid = superset_pid(sandbox, "staging")
    async with httpx.AsyncClient(base_url=servers[0].url, timeout=60) as http:
        task = await _start_migration(http, headers, ids)
        with frozen(pid):  # the task waits on staging: killed mid-step for sure
            await asyncio.sleep(0.3)
            mid = (await http.get(f"/api/tasks/{task['id']}", headers=headers)).json()
            assert mid["status"] == "running", mid
            servers[0].kill()

    killed_at = time.monotonic()
    servers.append(Server(settings, port, tmp_path / "server.log"))
    async with httpx.AsyncClient(base_url=servers[1].url, timeout=60) as http:
        done = await wait_for_task(http, lambda role: headers, task["id"])
    recovered_s = time.monotonic() - killed_at

    assert done["status"] == "succeeded", done
    assert len(done["result"]["imported"]) == len(ids)
    assert done["result"]["not_imported"] == []
    for title, css in (await _staging_css(superset)).items():
        assert "staging edit" not in css, title
    print(
        f"[measure] migration of {len(ids)} recovered and finished {recovered_s:.1f} s after kill"
    )


async def test_a_target_stopped_mid_import_keeps_every_dashboard_as_it_was(
    client: httpx.AsyncClient,
    auth: AuthHeaders,
    sandbox: Sandbox,
    superset: Superset,
    restore: Restore,
) -> None:
    """Never half-applied: the target dies in the import; the task reports no dashboard
    imported (none was confirmed) and names them in its error."""
    await restore("staging")
    await _make_staging_differ(superset)
    ids = await _released_ids(superset)
    headers = auth(Role.engineer)
    pid = superset_pid(sandbox, "staging")
    task = await _start_migration(client, headers, ids)
    await _at_import(client, headers, task["id"])
    os.kill(pid, signal.SIGSTOP)  # the import held where it is, before Superset commits it …
    mid = (await client.get(f"/api/tasks/{task['id']}", headers=headers)).json()
    os.killpg(os.getpgid(pid), signal.SIGKILL)  # … and the target dies there
    assert mid["status"] == "running", mid  # stopped in the import, not after the task ended
    try:
        await asyncio.to_thread(sandbox.stop, "staging")  # forgets the dead instance
        done = await wait_for_task(client, auth, task["id"])
    finally:
        await asyncio.to_thread(sandbox.start, "staging")

    assert done["status"] == "failed", done
    imported, not_imported = done["result"]["imported"], done["result"]["not_imported"]
    assert imported == []
    assert sorted(not_imported) == sorted(MIGRATED)
    assert f"«{not_imported[0]}»" in done["error"]  # what failed is named
    # Superset's one transaction: staging holds every dashboard as it was, or (the kill came
    # between its commit and its answer) every one imported — never some of them.
    css = await _staging_css(superset)
    kept = {title: "staging edit" in css[title] for title in MIGRATED}
    assert len(set(kept.values())) == 1, kept
