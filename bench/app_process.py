"""The real app in a uvicorn subprocess of its own, for benchmarks that measure it from outside.

One worker on a loopback port, a temporary SQLite database, environments that need no Superset
(nothing in these benchmarks reaches one), and a scripted model chosen by name, so a run costs no
model time. The bench process keeps its CPU and its event loop to itself; the server's RSS is its
own. ``python -m bench.app_process`` is the subprocess's entry point.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import sqlite3
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import httpx
import yaml

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import add_user
from sstools.config import Settings
from sstools.storage.db import create_engine, migrate, session_factory
from sstools.testing import free_port

# "answer": replies at once, calls no tool; "deploy": asks to deploy to prod (a confirmation).
Model = Literal["answer", "deploy"]
USER = "bench"
NEIGHBOUR = "bench-neighbour"  # another user, for what one user's load does to everyone else


@dataclass(frozen=True)
class AppProcess:
    url: str
    pid: int
    database: Path
    token: str  # the bench user's, as a Bearer header or the session cookie
    neighbour_token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    @property
    def neighbour_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.neighbour_token}"}

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError(f"no VmRSS for process {self.pid}")

    def cpu_seconds(self) -> float:
        """User + system CPU time the server process has used so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def events_written(self) -> list[tuple[str, int, dict[str, Any], float]]:
        """Every stored event: conversation, seq, data, and the server's write time (epoch s)."""
        connection = sqlite3.connect(self.database)
        try:
            rows = connection.execute(
                "SELECT conversation_id, seq, data, created_at FROM conversation_events"
            ).fetchall()
        finally:
            connection.close()
        # Stored without an offset and always UTC (sstools.storage.models.UtcDateTime).
        return [
            (c, s, _json(d), datetime.fromisoformat(at).replace(tzinfo=UTC).timestamp())
            for c, s, d, at in rows
        ]


def _json(text: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(text)
    return data


def _write_environments(folder: Path) -> None:
    (folder / "secrets.env").write_text("PW=x\n")
    environments = [
        {
            "id": env,
            "name": env,
            "stage": stage,
            "url": "http://127.0.0.1:9",
            "username": "svc",
            "password_env": "PW",
        }
        for env, stage in (("ss-dev", "dev"), ("prod", "prod"))
    ]
    (folder / "environments.yaml").write_text(
        yaml.safe_dump({"secrets_file": "secrets.env", "environments": environments})
    )


def _environment(folder: Path, port: int, secret: str, model: Model, caps: int) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
        "SSTOOLS_DATABASE_URL": f"sqlite:///{folder / 'db.sqlite'}",
        "SSTOOLS_ENVIRONMENTS_FILE": str(folder / "environments.yaml"),
        "SSTOOLS_CHECKPOINTS_FILE": str(folder / "checkpoints.db"),
        "SSTOOLS_JWT_SECRET": secret,
        "SSTOOLS_LOG_LEVEL": "WARNING",
        # The caps are per user, and the bench is one user holding every stream.
        "SSTOOLS_AGENT_STREAMS_PER_USER": str(caps),
        "SSTOOLS_AGENT_CONVERSATIONS_PER_USER": str(caps),
        "SSTOOLS_AGENT_RUNS_PER_USER": str(caps),
        "BENCH_APP_PORT": str(port),
        "BENCH_APP_MODEL": model,
    }


def serve() -> None:
    """The subprocess: the app with the named scripted model, on the port it was given."""
    import uvicorn

    from sstools.app import create_app
    from sstools.testing import ScriptedChatModel, answer, call_tool

    scripts = {
        "answer": answer("Готово."),
        "deploy": call_tool("deploy_dashboard", {"target_env_id": "prod"}),
    }
    model = ScriptedChatModel(script=scripts[os.environ["BENCH_APP_MODEL"]])
    app = create_app(Settings(_env_file=None), chat_model=model)
    port = int(os.environ["BENCH_APP_PORT"])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", backlog=4096)


@asynccontextmanager
async def app_process(folder: Path, model: Model, *, caps: int = 10) -> AsyncIterator[AppProcess]:
    """Migrate a fresh database in ``folder``, start the server, yield once it answers."""
    port, secret = free_port(), secrets.token_urlsafe(32)
    _write_environments(folder)
    environment = _environment(folder, port, secret, model, caps)
    database_url = environment["SSTOOLS_DATABASE_URL"]
    migrate(database_url)
    engine = create_engine(database_url)
    async with session_factory(engine)() as session:
        for username in (USER, NEIGHBOUR):
            await add_user(session, username, Role.engineer, secrets.token_urlsafe(16))
    await engine.dispose()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.app_process", cwd=folder, env=environment
    )
    settings = Settings(_env_file=None, jwt_secret=secret)
    token, neighbour_token = (
        issue_token(settings, Principal(username=username, role=Role.engineer))
        for username in (USER, NEIGHBOUR)
    )
    url = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient() as client:
            for _ in range(600):
                try:
                    if (await client.get(f"{url}/healthz")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.05)
            else:
                raise RuntimeError("the bench's app process did not start")
        yield AppProcess(url, process.pid, folder / "db.sqlite", token, neighbour_token)
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 30)


if __name__ == "__main__":
    serve()
