"""The agent against the real Superset sandbox: Story 1 offline, and a crash mid-confirmation."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.auth.secret import signing_key
from sstools.config import Settings
from sstools.sandbox import Sandbox
from sstools.testing import LiveServer, free_port
from tests.conftest import AuthHeaders, make_settings, seed_users
from tests.openai_server import ScriptedOpenAI, tool_then_text
from tests.rig import page_context
from tests.support import read_events, types


async def test_story1_independent_test_with_the_offline_planner(
    client: httpx.AsyncClient, auth: AuthHeaders, settings: Settings
) -> None:
    """Dashboard 10 in ss-dev → «расскажи про этот дашборд» → an answer about dashboard 10."""
    from sstools.app import create_app

    app = create_app(settings)  # no LLM configured: the offline planner answers
    with LiveServer(app) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as live:
            headers = auth(Role.analyst)
            tools = (
                await live.get(
                    "/api/agent/tools?objectType=dashboard&envId=ss-dev", headers=headers
                )
            ).json()["offered"]
            cid = (await live.post("/api/agent/conversations", headers=headers)).json()["id"]
            context = page_context("dashboard", "10", "ss-dev", "Отчёт по энергопотреблению")
            await live.post(
                f"/api/agent/conversations/{cid}/messages",
                headers=headers,
                json={"text": "расскажи про этот дашборд", "uicontext": context},
            )
            events = await read_events(live, cid, headers)
    assert "get_health_summary" in tools
    assert "superset_execute_sql" not in tools
    assert types(events) == ["run_started", "tool_call", "tool_result", "message", "done"]
    assert events[1]["tool"] == "get_health_summary"
    assert events[2]["outcome"] == "ok"
    answer = events[3]["text"]
    assert not answer.startswith("(офлайн")  # the /agent page says it once, not each answer
    assert "Отчёт по энергопотреблению" in answer
    assert "не версионирован" in answer


def _serve(port: int, environ: dict[str, str]) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "sstools", "serve", "--port", str(port)],
        env=environ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("sstools serve did not start")


@pytest.fixture
def crash_env(
    sandbox: Sandbox, tmp_path: Path, settings: Settings
) -> tuple[dict[str, str], Settings]:
    """A server of its own that accepts the tokens the ``auth`` fixture signs."""
    own = make_settings(tmp_path, sandbox.settings.environments_file.resolve())
    environ = {
        **os.environ,
        "SSTOOLS_JWT_SECRET": signing_key(settings),
        "SSTOOLS_DATABASE_URL": own.database_url,
        "SSTOOLS_CHECKPOINTS_FILE": str(own.checkpoints_file),
        "SSTOOLS_ENVIRONMENTS_FILE": str(own.environments_file),
        "SSTOOLS_LOG_LEVEL": "WARNING",
    }
    return environ, own


async def _demo_database(client: httpx.AsyncClient, headers: dict[str, str]) -> int:
    databases = (await client.get("/api/databases?env_id=ss-dev", headers=headers)).json()
    return int(next(db["id"] for db in databases if db["name"] == "Демо-данные"))


async def test_confirmation_survives_sigkill_and_the_write_runs_once(
    crash_env: tuple[dict[str, str], Settings],
    client: httpx.AsyncClient,
    auth: AuthHeaders,
) -> None:
    environ, settings = crash_env
    await seed_users(settings)
    engineer = auth(Role.engineer)
    database_id = await _demo_database(client, engineer)

    async def sql(statement: str) -> Any:
        response = await client.post(
            "/api/sql/execute?env_id=ss-dev",
            headers=engineer,
            json={"database_id": database_id, "sql": statement},
        )
        assert response.status_code == 200, response.text
        return response.json()["rows"]

    await sql("create table if not exists sstools_restart_probe (a int)")
    await sql("delete from sstools_restart_probe")
    insert = "insert into sstools_restart_probe values (1)"
    llm = ScriptedOpenAI(
        tool_then_text(
            "superset_execute_sql", {"sql": insert, "database_id": database_id}, "Строка добавлена."
        )
    )
    port = free_port()
    with LiveServer(llm.app) as llm_server:
        environ["SSTOOLS_LLM_BASE_URL"] = f"{llm_server.url}/v1"
        first = _serve(port, environ)
        base = f"http://127.0.0.1:{port}"
        try:
            async with httpx.AsyncClient(base_url=base, timeout=30) as live:
                cid = (await live.post("/api/agent/conversations", headers=engineer)).json()["id"]
                context = {
                    "contextVersion": 1,
                    "objectType": "dataset",
                    "objectId": "1",
                    "envId": "ss-dev",
                    "route": "/datasets/1",
                }
                await live.post(
                    f"/api/agent/conversations/{cid}/messages",
                    headers=engineer,
                    json={"text": "добавь строку", "uicontext": context},
                )
                card = (await read_events(live, cid, engineer))[-1]
            assert card["type"] == "confirm_required"
            assert card["decision"]["tone"] == "info"  # a write to dev
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait()
        assert await sql("select count(*) as n from sstools_restart_probe") == [{"n": 0}]

        second = _serve(port, environ)
        try:
            async with httpx.AsyncClient(base_url=base, timeout=30) as live:
                replay = await read_events(live, cid, engineer, last_event_id=card["_id"])
                assert types(replay) == ["confirm_required"]
                assert replay[0]["confirmation_id"] == card["confirmation_id"]
                decided = await live.post(
                    f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}",
                    json={"decision": "approve"},
                    headers=engineer,
                )
                assert decided.status_code == 200, decided.text
                events = await read_events(live, cid, engineer, last_event_id=card["_id"])
        finally:
            second.terminate()
            second.wait()
    assert types(events) == ["run_started", "tool_result", "token", "token", "message", "done"]
    assert events[1]["outcome"] == "ok"
    assert await sql("select count(*) as n from sstools_restart_probe") == [{"n": 1}]
    await sql("drop table sstools_restart_probe")
