"""Install, start, seed and stop the sandbox's Superset instances.

Layout under the sandbox folder (``SSTOOLS_SANDBOX_DIR``, default ``.sandbox``)::

    venv/                  Superset's venv, kept between runs (another release's: venv-5.0.0/)
    template.db            a metadata DB made once, copied for each instance (template-5.0.0.db)
    install.lock           one install of the venv and the template at a time (install-5.0.0.lock)
    sandbox.lock           one `up`/`reset`/`start`/`stop` at a time across processes
    secrets.env            the service account's password (mode 600)
    demo/demo.db           the demo data source
    envs/<id>/             per instance: superset.db, superset_config.py, .pid, .log
    environments.yaml      what `sstools serve` reads
    fleets/<name>/         another fleet (``SSTOOLS_SANDBOX_FLEET``) on its own ports, sharing the
                           venv, the template and the password: its own sandbox.lock, demo/, envs/
                           and environments.yaml (a parallel test worker runs on one of these)
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
import yaml
from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from sstools.environments import Environment, Stage
from sstools.sandbox import superset_home, versions
from sstools.sandbox.demo_data import create_demo_database
from sstools.sandbox.errors import SandboxError
from sstools.sandbox.lock import exclusive
from sstools.sandbox.promote import promote
from sstools.sandbox.seed import finish, seed_dev
from sstools.sandbox.superset_home import PASSWORD_KEY, SERVICE_ACCOUNT, Progress
from sstools.superset import SupersetClient


class SandboxSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SSTOOLS_SANDBOX_", extra="ignore")

    dir: Path = Path(".sandbox")
    base_port: int = 8081
    startup_timeout_s: float = 180.0
    fleet: str | None = Field(default=None, pattern=r"^[a-z0-9-]+$")  # None: the default, in dir
    # Environment id -> the Superset release it runs (JSON); the others run versions.DEFAULT.
    versions: dict[str, str] = Field(default_factory=dict)

    @field_validator("versions")
    @classmethod
    def _known_versions(cls, value: dict[str, str]) -> dict[str, str]:
        return versions.check(value, tuple(instance.env_id for instance in INSTANCES))

    @property
    def fleet_dir(self) -> Path:
        return self.dir / "fleets" / self.fleet if self.fleet else self.dir

    @property
    def environments_file(self) -> Path:
        return self.fleet_dir / "environments.yaml"


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
        self.home = settings.dir.resolve()  # shared by every fleet: venv, template, password
        self.root = settings.fleet_dir.resolve()  # this fleet's instances and demo data

    def version(self, env_id: str) -> str:
        """The Superset release an instance of this fleet runs."""
        return self.settings.versions.get(env_id, versions.DEFAULT)

    def _versions(self) -> list[str]:
        return sorted({self.version(instance.env_id) for instance in INSTANCES})

    # -- paths -----------------------------------------------------------------------------

    def _port(self, instance: Instance) -> int:
        return self.settings.base_port + instance.port_offset

    def _url(self, instance: Instance) -> str:
        return f"http://127.0.0.1:{self._port(instance)}"

    def _env_dir(self, instance: Instance) -> Path:
        return self.root / "envs" / instance.env_id

    def _pid_file(self, instance: Instance) -> Path:
        return self._env_dir(instance) / "superset.pid"

    @property
    def _lock(self) -> Path:
        return self.root / "sandbox.lock"

    # -- install, secrets, the template metadata DB (superset_home) ---------------------------

    def _password(self) -> SecretStr:
        return superset_home.password(self.home)

    def prepare(self, progress: Progress = _quiet, also: tuple[str, ...] = ()) -> dict[str, Path]:
        """What every fleet shares, made once a version: its venv and template metadata DB.

        The versions this fleet runs, and ``also`` (another fleet's, installed ahead of it);
        several at once, each under its own lock (pip mostly waits on the network and the disk).
        """
        wanted = sorted({*self._versions(), *also})
        for version in wanted:
            if version not in versions.SUPPORTED:
                raise SandboxError(
                    f"Superset {version} is not one the sandbox installs; "
                    f"choose one of {', '.join(versions.SUPPORTED)}"
                )
        with ThreadPoolExecutor(max_workers=len(wanted)) as pool:
            made = pool.map(lambda version: self._prepared(version, progress), wanted)
            return dict(zip(wanted, made, strict=True))

    def _prepared(self, version: str, progress: Progress) -> Path:
        venv = versions.venv(self.home, version)
        with exclusive(self.home / versions.install_lock(version)):
            superset_home.install(venv, progress, version)
            return superset_home.template(self.home, venv, progress, version)

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

    def _same_version(self, instance: Instance) -> None:
        versions.check_recorded(
            self._env_dir(instance), instance.env_id, self.version(instance.env_id)
        )

    def _healthy(self, instance: Instance) -> bool:
        try:
            return httpx.get(f"{self._url(instance)}/health", timeout=2.0).status_code == 200
        except httpx.HTTPError:
            return False

    def _start(self, instance: Instance, templates: dict[str, Path]) -> None:
        version = self.version(instance.env_id)
        template = templates[version]
        folder = self._env_dir(instance)
        metadata_db = folder / "superset.db"
        if not metadata_db.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(template, metadata_db)
            versions.record(folder, version)
        config = superset_home.write_config(folder, metadata_db)
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
                str(versions.venv(self.home, version) / "bin" / "superset"),
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
            "secrets_file": os.path.relpath(self.home / "secrets.env", self.root),
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
        """Dev through the REST API, then staging and prod by importing dev's export."""
        clients = [SupersetClient(env, timeout_s=60.0) for env in self.environments()]
        dev = next(client for client in clients if client.env.stage is Stage.dev)
        targets = [client for client in clients if client is not dev]
        try:
            # Dev's broken dataset and its drift come after the export; the order matters.
            reports = [await seed_dev(dev, demo_uri), *await promote(dev, targets)]
            await asyncio.gather(
                *(
                    finish(client, report, is_dev=client is dev)
                    for client, report in zip([dev, *targets], reports, strict=True)
                )
            )
        finally:
            for client in clients:
                await client.aclose()
        return [f"{report.env_id}: {len(report.created)} objects created" for report in reports]

    def up(self, progress: Progress = _quiet) -> None:
        """Install if needed, start what is not running, seed what is missing. Idempotent."""
        with exclusive(self._lock):
            self._up(progress)

    def _up(self, progress: Progress) -> None:
        started = time.monotonic()
        templates = self.prepare(progress)
        demo_db = self.root / "demo" / "demo.db"
        create_demo_database(demo_db)
        for instance in INSTANCES:
            self._same_version(instance)
        to_start = [instance for instance in INSTANCES if self._owned_pid(instance) is None]
        for instance in to_start:
            self._start(instance, templates)
        self._wait_healthy(list(INSTANCES))
        seeding = time.monotonic()
        for line in asyncio.run(self._seed_all(f"sqlite:///{demo_db}")):
            progress(line)
        progress(f"seeded in {time.monotonic() - seeding:.1f} s")
        self._write_environments_file()
        progress(
            f"sandbox up in {time.monotonic() - started:.1f} s "
            f"({len(to_start)} started, {len(INSTANCES) - len(to_start)} already running)"
        )

    def _instance(self, env_id: str) -> Instance:
        for instance in INSTANCES:
            if instance.env_id == env_id:
                return instance
        known = ", ".join(instance.env_id for instance in INSTANCES)
        raise SandboxError(f"no sandbox instance {env_id!r}; the instances are: {known}")

    def _stop(self, instance: Instance) -> str:
        pid = self._owned_pid(instance)
        if pid is None:
            return f"{instance.env_id}: not running"
        group = os.getpgid(pid)
        os.killpg(group, signal.SIGTERM)
        deadline = time.monotonic() + 15
        while self._owned_pid(instance) is not None and time.monotonic() < deadline:
            time.sleep(0.2)
        if self._owned_pid(instance) is not None:
            os.killpg(group, signal.SIGKILL)
        self._pid_file(instance).unlink(missing_ok=True)
        return f"{instance.env_id}: stopped (pid {pid})"

    def down(self) -> list[str]:
        """Stop the instances this sandbox started (their process groups), nothing else."""
        with exclusive(self._lock):
            return [self._stop(instance) for instance in INSTANCES]

    def stop(self, env_id: str) -> str:
        """Stop one instance (an outage in the middle of a deploy); its content stays."""
        instance = self._instance(env_id)
        with exclusive(self._lock):
            return self._stop(instance)

    def start(self, env_id: str) -> str:
        """Start one stopped instance again and wait until it is healthy; no seeding."""
        instance = self._instance(env_id)
        with exclusive(self._lock):
            return self._start_one(instance)

    def _start_one(self, instance: Instance) -> str:
        if self._owned_pid(instance) is not None:
            self._wait_healthy([instance])
            return f"{instance.env_id}: already running"
        if not (self._env_dir(instance) / "superset.db").is_file():
            raise SandboxError(f"{instance.env_id} was never set up; run `sstools sandbox up`")
        self._same_version(instance)
        started = time.monotonic()
        version = self.version(instance.env_id)
        self._start(instance, {version: self._prepared(version, _quiet)})
        self._wait_healthy([instance])
        return f"{instance.env_id}: started, healthy in {time.monotonic() - started:.1f} s"

    def reset(self, progress: Progress = _quiet) -> None:
        """Stop every instance, forget their content, and `up` again: a freshly seeded fleet.

        Superset's venv, the template metadata DB, the password and the demo data are kept.
        """
        with exclusive(self._lock):
            for instance in INSTANCES:
                progress(self._stop(instance))
            shutil.rmtree(self.root / "envs", ignore_errors=True)
            self._up(progress)

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
