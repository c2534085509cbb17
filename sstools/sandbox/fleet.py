"""Install, start, seed and stop the sandbox's Superset instances.

Layout under the sandbox folder (``SSTOOLS_SANDBOX_DIR``, default ``.sandbox``)::

    venv/                  Superset's own virtual environment (kept between runs)
    template.db            a metadata DB initialised once, copied for each instance
    secrets.env            the service account's password (mode 600)
    demo/demo.db           the demo data source
    envs/<id>/             per instance: superset.db, superset_config.py, .pid, .log
    environments.yaml      what `sstools serve` reads
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
import yaml
from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from sstools.environments import Environment, Stage
from sstools.sandbox.demo_data import create_demo_database
from sstools.sandbox.seed import seed
from sstools.superset import SupersetClient

_REQUIREMENTS = Path(__file__).with_name("requirements.txt")
SERVICE_ACCOUNT = "sstools_svc"
PASSWORD_KEY = "SSTOOLS_SANDBOX_SUPERSET_PASSWORD"  # noqa: S105 - the name, not the value

Progress = Callable[[str], None]


class SandboxError(Exception):
    """The sandbox could not be installed, started or seeded; the message says what to do."""


class SandboxSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SSTOOLS_SANDBOX_", extra="ignore")

    dir: Path = Path(".sandbox")
    base_port: int = 8081
    startup_timeout_s: float = 180.0

    @property
    def environments_file(self) -> Path:
        return self.dir / "environments.yaml"


@dataclass(frozen=True)
class Instance:
    env_id: str
    name: str
    stage: Stage
    port_offset: int


INSTANCES = (
    Instance("ss-dev", "Superset dev", Stage.dev, 0),
    Instance("staging", "Superset staging", Stage.staging, 1),
    Instance("prod", "Superset prod", Stage.prod, 2),
)


@dataclass(frozen=True)
class InstanceStatus:
    env_id: str
    stage: Stage
    url: str
    pid: int | None
    running: bool
    healthy: bool


def _quiet(_: str) -> None:
    pass


class Sandbox:
    def __init__(self, settings: SandboxSettings) -> None:
        self.settings = settings
        self.root = settings.dir.resolve()
        self.venv = self.root / "venv"

    # -- paths -----------------------------------------------------------------------------

    def _port(self, instance: Instance) -> int:
        return self.settings.base_port + instance.port_offset

    def _url(self, instance: Instance) -> str:
        return f"http://127.0.0.1:{self._port(instance)}"

    def _env_dir(self, instance: Instance) -> Path:
        return self.root / "envs" / instance.env_id

    def _pid_file(self, instance: Instance) -> Path:
        return self._env_dir(instance) / "superset.pid"

    # -- install -----------------------------------------------------------------------------

    def install(self, progress: Progress = _quiet) -> None:
        """Create Superset's virtual environment once; again only if the requirements change."""
        digest = hashlib.sha256(_REQUIREMENTS.read_bytes()).hexdigest()
        marker = self.venv / ".sstools-requirements"
        if marker.is_file() and marker.read_text() == digest:
            return
        progress("installing Apache Superset into its own virtual environment (about a minute)…")
        started = time.monotonic()
        shutil.rmtree(self.venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(self.venv)], check=True)
        pip = [str(self.venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        result = subprocess.run(
            [*pip, "-r", str(_REQUIREMENTS)], capture_output=True, text=True, check=False
        )
        if result.returncode != 0:
            tail = "\n".join(result.stderr.splitlines()[-15:])
            raise SandboxError(f"installing Superset failed:\n{tail}")
        marker.write_text(digest)
        progress(f"installed Superset in {time.monotonic() - started:.0f} s")

    # -- secrets and the template metadata DB --------------------------------------------------

    def _password(self) -> SecretStr:
        path = self.root / "secrets.env"
        if not path.is_file():
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write(f"{PASSWORD_KEY}={secrets.token_urlsafe(24)}\n")
        for line in path.read_text().splitlines():
            key, _, value = line.partition("=")
            if key.strip() == PASSWORD_KEY:
                return SecretStr(value.strip())
        raise SandboxError(f"{path}: no {PASSWORD_KEY}; delete the file to make a new one")

    def _write_config(self, folder: Path, metadata_db: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        key_file = folder / "secret_key"
        if not key_file.is_file():
            key_file.write_text(secrets.token_urlsafe(48))
            key_file.chmod(0o600)
        config = folder / "superset_config.py"
        config.write_text(
            "# Written by `sstools sandbox up`: a local, loopback-only Superset.\n"
            f"SECRET_KEY = open({str(key_file)!r}).read().strip()\n"
            f"SQLALCHEMY_DATABASE_URI = 'sqlite:///{metadata_db}?check_same_thread=false'\n"
            "# Lets the demo SQLite file be a data source; keep it True in real deployments.\n"
            "PREVENT_UNSAFE_DB_CONNECTIONS = False\n"
            "TALISMAN_ENABLED = False\n"
            "FAB_ADD_SECURITY_API = True\n"
            "SUPERSET_LOAD_EXAMPLES = False\n"
        )
        return config

    def _superset(self, config: Path, *args: str) -> None:
        env = {**os.environ, "SUPERSET_CONFIG_PATH": str(config), "FLASK_APP": "superset"}
        result = subprocess.run(
            [str(self.venv / "bin" / "superset"), *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            tail = "\n".join((result.stdout + result.stderr).splitlines()[-15:])
            raise SandboxError(f"`superset {args[0]}` failed:\n{tail}")

    def _template(self, progress: Progress) -> Path:
        """One initialised metadata DB; each instance starts from a copy of it (not 3 inits)."""
        template = self.root / "template.db"
        if template.is_file():
            return template
        progress("initialising the Superset metadata DB…")
        started = time.monotonic()
        building = self.root / "template-build"
        shutil.rmtree(building, ignore_errors=True)
        config = self._write_config(building, building / "superset.db")
        self._superset(config, "db", "upgrade")
        self._superset(
            config,
            "fab",
            "create-admin",
            "--username",
            SERVICE_ACCOUNT,
            "--firstname",
            "sstools",
            "--lastname",
            "service",
            "--email",
            "sstools@localhost",
            "--password",
            self._password().get_secret_value(),
        )
        self._superset(config, "init")
        (building / "superset.db").replace(template)
        shutil.rmtree(building, ignore_errors=True)
        progress(f"initialised the metadata DB in {time.monotonic() - started:.0f} s")
        return template

    # -- processes -----------------------------------------------------------------------------

    def _owned_pid(self, instance: Instance) -> int | None:
        """The pid in the pid file, if that process is still our Superset on our port."""
        try:
            pid = int(self._pid_file(instance).read_text().strip())
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError):
            return None
        ours = (
            any(part.endswith(b"/superset") for part in cmdline)
            and str(self._port(instance)).encode() in cmdline
        )
        return pid if ours else None

    def _healthy(self, instance: Instance) -> bool:
        try:
            return httpx.get(f"{self._url(instance)}/health", timeout=2.0).status_code == 200
        except httpx.HTTPError:
            return False

    def _start(self, instance: Instance, template: Path) -> None:
        folder = self._env_dir(instance)
        metadata_db = folder / "superset.db"
        if not metadata_db.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(template, metadata_db)
        config = self._write_config(folder, metadata_db)
        if self._healthy(instance):
            raise SandboxError(
                f"port {self._port(instance)} for {instance.env_id} is taken by another process; "
                "set SSTOOLS_SANDBOX_BASE_PORT"
            )
        # A short-lived shell starts the server in the background and reports its pid: the server
        # is detached from us (no Popen to reap) yet in its own process group for `down`.
        launcher = subprocess.run(
            [
                "/bin/sh",
                "-c",
                '"$@" >>"$SSTOOLS_LOG" 2>&1 </dev/null &\necho $!',
                "sh",
                str(self.venv / "bin" / "superset"),
                "run",
                "-h",
                "127.0.0.1",
                "-p",
                str(self._port(instance)),
                "--with-threads",
            ],
            env={
                **os.environ,
                "SUPERSET_CONFIG_PATH": str(config),
                "FLASK_APP": "superset",
                "SSTOOLS_LOG": str(folder / "superset.log"),
            },
            capture_output=True,
            text=True,
            check=True,
            start_new_session=True,
        )
        self._pid_file(instance).write_text(launcher.stdout.strip())

    def _wait_healthy(self, instances: list[Instance]) -> None:
        deadline = time.monotonic() + self.settings.startup_timeout_s
        waiting = list(instances)
        while waiting:
            waiting = [instance for instance in waiting if not self._healthy(instance)]
            for instance in waiting:
                if self._owned_pid(instance) is None:
                    log = self._env_dir(instance) / "superset.log"
                    raise SandboxError(f"{instance.env_id} exited while starting; see {log}")
            if waiting and time.monotonic() > deadline:
                names = ", ".join(instance.env_id for instance in waiting)
                raise SandboxError(f"{names} not healthy after {self.settings.startup_timeout_s} s")
            if waiting:
                time.sleep(0.5)

    # -- the fleet -----------------------------------------------------------------------------

    def environments(self) -> list[Environment]:
        password = self._password()
        return [
            Environment(
                id=instance.env_id,
                name=instance.name,
                stage=instance.stage,
                url=self._url(instance),
                username=SERVICE_ACCOUNT,
                password=password,
            )
            for instance in INSTANCES
        ]

    def _write_environments_file(self) -> None:
        document = {
            "secrets_file": "secrets.env",
            "environments": [
                {
                    "id": env.id,
                    "name": env.name,
                    "stage": env.stage.value,
                    "url": env.url,
                    "username": env.username,
                    "password_env": PASSWORD_KEY,
                }
                for env in self.environments()
            ],
        }
        self.settings.environments_file.write_text(
            "# Written by `sstools sandbox up`.\n"
            + yaml.safe_dump(document, allow_unicode=True, sort_keys=False)
        )

    async def _seed_all(self, demo_uri: str) -> list[str]:
        lines: list[str] = []

        async def one(env: Environment) -> None:
            client = SupersetClient(env, timeout_s=60.0)
            try:
                report = await seed(client, demo_uri, is_dev=env.stage is Stage.dev)
            finally:
                await client.aclose()
            lines.append(f"{env.id}: {len(report.created)} objects created")

        await asyncio.gather(*(one(env) for env in self.environments()))
        return lines

    def up(self, progress: Progress = _quiet) -> None:
        """Install if needed, start what is not running, seed what is missing. Idempotent."""
        started = time.monotonic()
        self.install(progress)
        template = self._template(progress)
        demo_db = self.root / "demo" / "demo.db"
        create_demo_database(demo_db)
        to_start = [instance for instance in INSTANCES if self._owned_pid(instance) is None]
        for instance in to_start:
            self._start(instance, template)
        self._wait_healthy(list(INSTANCES))
        for line in asyncio.run(self._seed_all(f"sqlite:///{demo_db}")):
            progress(line)
        self._write_environments_file()
        progress(
            f"sandbox up in {time.monotonic() - started:.1f} s "
            f"({len(to_start)} started, {len(INSTANCES) - len(to_start)} already running)"
        )

    def down(self) -> list[str]:
        """Stop the instances this sandbox started (their process groups), nothing else."""
        lines = []
        for instance in INSTANCES:
            pid = self._owned_pid(instance)
            if pid is None:
                lines.append(f"{instance.env_id}: not running")
                continue
            group = os.getpgid(pid)
            os.killpg(group, signal.SIGTERM)
            deadline = time.monotonic() + 15
            while self._owned_pid(instance) is not None and time.monotonic() < deadline:
                time.sleep(0.2)
            if self._owned_pid(instance) is not None:
                os.killpg(group, signal.SIGKILL)
            self._pid_file(instance).unlink(missing_ok=True)
            lines.append(f"{instance.env_id}: stopped (pid {pid})")
        return lines

    def status(self) -> list[InstanceStatus]:
        statuses = []
        for instance in INSTANCES:
            pid = self._owned_pid(instance)
            statuses.append(
                InstanceStatus(
                    env_id=instance.env_id,
                    stage=instance.stage,
                    url=self._url(instance),
                    pid=pid,
                    running=pid is not None,
                    healthy=pid is not None and self._healthy(instance),
                )
            )
        return statuses
