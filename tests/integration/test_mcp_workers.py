"""The MCP face with two workers on one PostgreSQL database: a write held through one worker is
stored, not kept in its memory — that worker is killed and started again, the request is still
listed by the other, and approvals sent at once to both run it exactly once."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from sstools.auth.personal_tokens import create_token
from sstools.sandbox import Sandbox
from sstools.storage.db import create_engine, session_factory
from sstools.testing import free_port
from tests.conftest import make_settings, seed_users
from tests.integration.deploy_support import Superset, kept_as_it_was

EDIT = "/* edited by hand while two workers served */"


@contextmanager
def serving(environ: dict[str, str], port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``sstools serve`` on ``port`` until the block ends (or the test kills it first)."""
    with log.open("ab") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "sstools", "serve", "--port", str(port)],
            env=environ,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 120
        while not _healthy(port):
            assert server.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        yield server
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            server.wait(60)


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


async def _held_through(url: str, token: str, deploy: dict[str, object]) -> str:
    """A host that cannot ask its person asks ``url``'s /mcp for the deploy: the request's id."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(120)) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        held = await session.call_tool("deploy_dashboard", deploy)
    data = held.structuredContent or {}
    assert data.get("status") == "approval_needed", held.content
    return str(data["request_id"])


async def test_a_held_write_outlives_its_worker_and_runs_once_whichever_worker_approves(
    tmp_path: Path, pg_url: str, sandbox: Sandbox, superset: Superset
) -> None:
    settings = make_settings(tmp_path, sandbox.settings.environments_file.resolve())
    settings = settings.model_copy(update={"database_url": pg_url})
    await seed_users(settings)
    engine = create_engine(pg_url)
    async with session_factory(engine)() as session:
        token = await create_token(session, "engineer", "two-workers")
    await engine.dispose()
    assert token is not None
    environ = {
        **os.environ,
        "SSTOOLS_DATABASE_URL": pg_url,
        "SSTOOLS_ENVIRONMENTS_FILE": str(settings.environments_file),
        "SSTOOLS_GIT_DIR": str(tmp_path / "git"),
        "SSTOOLS_BACKUP_DIR": str(tmp_path / "backups"),
        "SSTOOLS_BUNDLE_DIR": str(tmp_path / "bundles"),
        "SSTOOLS_DRIFT_WATCH_CRON": "",
        "SSTOOLS_JWT_SECRET": "two-workers-share-one-secret-of-32-bytes",
        "TMPDIR": str(tmp_path),
    }
    environ.pop("SSTOOLS_LLM_BASE_URL", None)
    one, other = free_port(), free_port()
    urls = {port: f"http://127.0.0.1:{port}" for port in (one, other)}
    requester = {"Authorization": f"Bearer {token}"}
    log = tmp_path / "serve.log"
    deploy = {"env_id": "ss-dev", "dashboard_id": 10, "target_env_id": "staging"}
    with serving(environ, other, log):
        async with httpx.AsyncClient(timeout=120, headers=requester) as web:
            body = {
                "dashboard_ids": [10],
                "source": {"env_id": "ss-dev"},
                "target_env_id": "staging",
            }
            plan = (await web.post(f"{urls[other]}/api/deploy/plan", json=body)).json()
            staging_id = int(plan["dashboards"][0]["target_id"])
            async with kept_as_it_was(superset, "staging", staging_id) as staging:
                await staging.put_json(f"/api/v1/dashboard/{staging_id}", {"css": EDIT})
                with serving(environ, one, log) as first_worker:
                    request_id = await _held_through(urls[one], token, deploy)
                    first_worker.kill()  # gone mid-way, its memory with it
                    first_worker.wait(30)
                listed = (await web.get(f"{urls[other]}/api/approvals")).json()["approvals"]
                assert request_id in [request["id"] for request in listed]
                before = (await web.get(f"{urls[other]}/api/tasks?env_id=staging")).json()
                with serving(environ, one, log):  # the worker again, beside the other
                    decided = await asyncio.gather(
                        *(
                            web.post(
                                f"{url}/api/approvals/{request_id}", json={"decision": "approve"}
                            )
                            for url in (urls[one], urls[other], urls[other])
                        )
                    )
                    statuses = sorted(answer.status_code for answer in decided)
                    assert statuses == [200, 409, 409], [answer.text for answer in decided]
                    task_id = next(a.json() for a in decided if a.status_code == 200)["task_id"]
                    for _ in range(240):
                        task = (await web.get(f"{urls[one]}/api/tasks/{task_id}")).json()
                        if task["status"] in ("succeeded", "failed", "cancelled"):
                            break
                        await asyncio.sleep(0.5)
                after = (await web.get(f"{urls[other]}/api/tasks?env_id=staging")).json()
                css = (await staging.get_json(f"/api/v1/dashboard/{staging_id}"))["result"]["css"]
    assert task["status"] == "succeeded", task
    started = {task["id"] for task in after} - {task["id"] for task in before}
    assert started == {task_id}  # once, of three approvals on two workers
    assert css != EDIT
