"""Several real ``sstools serve`` processes on one PostgreSQL database, and a fake Superset on HTTP.

Shared by ``tests/scale`` and ``bench/scale.py``:

- :func:`fresh_database`: a new PostgreSQL database, dropped when the block ends (or
  :class:`PostgresUnreachable` with the reason).
- :class:`SupersetOverHttp`: :class:`~sstools.testing.fake_superset.FakeSuperset` behind a real
  port, so separate processes can reach it; :meth:`SupersetOverHttp.hold` keeps matching requests
  waiting until released (a run caught mid-tool).
- :class:`Fleet`: the workers, each a ``sstools serve`` subprocess on its own port with the same
  database, JWT secret and environments file.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
import yaml
from psycopg import sql
from sqlalchemy.engine import make_url
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from sstools.errors import SstoolsError
from sstools.testing import LiveServer, free_port
from sstools.testing.fake_superset import FakeSuperset

SSTOOLS = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "sstools"
DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
START_TIMEOUT_S = 90.0


def postgres_url() -> str:
    return os.environ.get("SSTOOLS_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)


class PostgresUnreachable(SstoolsError):
    """No PostgreSQL at the configured URL; the message says which and why."""


@contextmanager
def fresh_database(prefix: str = "sstools_scale") -> Iterator[str]:
    """The URL of a new, empty database on :func:`postgres_url`'s server; dropped after."""
    admin_url = postgres_url()
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    try:
        with psycopg.connect(admin_url, connect_timeout=3, autocommit=True) as conn:
            conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    except psycopg.OperationalError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise PostgresUnreachable(f"PostgreSQL not reachable at {admin_url}: {reason}") from exc
    try:
        yield make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(
                sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name))
            )


class SupersetOverHttp:
    """A :class:`FakeSuperset` served on a loopback port (uvicorn in a thread of this process)."""

    def __init__(self, fake: FakeSuperset, port: int | None = None) -> None:
        self.fake = fake
        self._held: str | None = None
        self._release = threading.Event()
        self.waiting = threading.Event()  # set once a held request has arrived
        methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"]
        app = Starlette(routes=[Route("/{path:path}", self._handle, methods=methods)])
        self._server = LiveServer(app, port)
        self.url = self._server.url

    def __enter__(self) -> SupersetOverHttp:
        self._server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
        self._server.__exit__(*exc)

    def hold(self, path: str) -> None:
        """Requests to ``path`` wait (in a thread, the server stays responsive) until released."""
        self._release.clear()
        self.waiting.clear()
        self._held = path

    def release(self) -> None:
        self._held = None
        self._release.set()

    async def _handle(self, request: Request) -> Response:
        if self._held is not None and request.url.path == self._held:
            self.waiting.set()
            await _wait_in_thread(self._release)
        forwarded = httpx.Request(
            request.method,
            str(request.url),
            headers=[(k, v) for k, v in request.headers.raw if k.lower() != b"host"],
            content=await request.body(),
        )
        answer = self.fake.handle(forwarded)
        headers = {
            name: value
            for name, value in answer.headers.items()
            if name.lower() in ("content-type", "set-cookie")
        }
        return Response(answer.content, status_code=answer.status_code, headers=headers)


async def _wait_in_thread(event: threading.Event) -> None:
    await asyncio.to_thread(event.wait, 60)


def environments_file(folder: Path, url: str, fake: FakeSuperset) -> Path:
    """dev, staging and prod, all three the one fake at ``url`` (as the agent tests' ones)."""
    (folder / "secrets.env").write_text(f"SVC_PASSWORD={fake.password}\n")
    document = {
        "secrets_file": "secrets.env",
        "environments": [
            {
                "id": env_id,
                "name": name,
                "stage": stage,
                "url": url,
                "username": fake.username,
                "password_env": "SVC_PASSWORD",
            }
            for env_id, name, stage in (
                ("ss-dev", "Dev", "dev"),
                ("staging", "Staging", "staging"),
                ("prod", "Prod", "prod"),
            )
        ],
    }
    path = folder / "environments.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True))
    return path


@dataclass
class Worker:
    """One ``sstools serve`` process (``workers`` > 1: uvicorn's processes behind one port)."""

    name: str
    port: int
    env: dict[str, str]
    folder: Path
    workers: int = 1
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.folder / f"{self.name}.log"

    def start(self) -> None:
        command = [str(SSTOOLS), "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        if self.workers > 1:
            command += ["--workers", str(self.workers)]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(  # noqa: S603 - our own venv's sstools
                command, env=self.env, cwd=self.folder, stdout=log, stderr=subprocess.STDOUT
            )

    def wait_ready(self, timeout_s: float = START_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.name} exited with {self.process.returncode}:\n{self.tail()}"
                )
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} did not answer /healthz in {timeout_s} s:\n{self.tail()}")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """``kill -9``: no shutdown, no cleanup, as a crash or the OOM killer does it."""
        if self.alive():
            assert self.process is not None
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.alive():
            assert self.process is not None
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def pids(self) -> list[int]:
        """The serving processes: this one and, with ``--workers``, its children."""
        if self.process is None:
            return []
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        found = [int(pid) for pid in children.read_text().split()] if children.exists() else []
        return [self.process.pid, *found]

    def tail(self, lines: int = 40) -> str:
        if not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def rss_mib(pid: int) -> float:
    """Resident memory of one process, from /proc (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


PASSWORD = "scale-test-password"  # noqa: S105 - a throwaway database's test user


@dataclass
class Fleet:
    """Workers sharing one database, one JWT secret and one environments file."""

    database_url: str
    folder: Path
    environments: Path
    extra_env: dict[str, str] = field(default_factory=dict)
    jwt_secret: str = field(default_factory=lambda: secrets.token_urlsafe(48))
    members: list[Worker] = field(default_factory=list)

    def env(self, name: str) -> dict[str, str]:
        inherited = {k: v for k, v in os.environ.items() if not k.startswith("SSTOOLS_")}
        return {
            **inherited,
            "SSTOOLS_DATABASE_URL": self.database_url,
            "SSTOOLS_ENVIRONMENTS_FILE": str(self.environments),
            "SSTOOLS_JWT_SECRET": self.jwt_secret,
            "SSTOOLS_GIT_DIR": str(self.folder / "git"),
            "SSTOOLS_BACKUP_DIR": str(self.folder / "backups"),
            # Each its own file: were checkpoints still on SQLite, a resume on another worker
            # would find nothing (the shared database is meant to hold them).
            "SSTOOLS_CHECKPOINTS_FILE": str(self.folder / f"checkpoints-{name}.db"),
            "SSTOOLS_LOG_LEVEL": "WARNING",
            **self.extra_env,
        }

    def add_user(self, username: str, role: str = "engineer") -> None:
        """Through the command line, as an operator would."""
        subprocess.run(  # noqa: S603 - our own venv's sstools
            [str(SSTOOLS), "users", "add", username, "--role", role, "--password", PASSWORD],
            env=self.env("cli"),
            cwd=self.folder,
            check=True,
            capture_output=True,
            timeout=120,
        )

    def start(self, count: int, workers_per_port: int = 1) -> list[Worker]:
        started = [
            Worker(
                name=f"worker-{len(self.members) + i}",
                port=free_port(),
                env=self.env(f"worker-{len(self.members) + i}"),
                folder=self.folder,
                workers=workers_per_port,
            )
            for i in range(count)
        ]
        for worker in started:
            worker.start()
        for worker in started:
            worker.wait_ready()
        self.members += started
        return started

    def restart(self, worker: Worker) -> None:
        worker.stop()
        worker.port = free_port()  # the killed one's port may linger in TIME_WAIT
        worker.start()
        worker.wait_ready()

    def stop(self) -> None:
        for worker in self.members:
            worker.stop()

    def login(self, username: str) -> dict[str, str]:
        """A bearer header from the first worker; the shared secret makes it good on every one."""
        response = httpx.post(
            f"{self.members[0].url}/api/auth/login",
            json={"username": username, "password": PASSWORD},
            timeout=30,
        )
        response.raise_for_status()
        return {"Authorization": f"Bearer {response.json()['access_token']}"}
