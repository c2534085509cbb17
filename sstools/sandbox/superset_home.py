"""Superset's own virtual environment, the sandbox's secrets, and the template metadata DB.

Module functions rather than :class:`~sstools.sandbox.fleet.Sandbox` methods, so the fleet module
keeps to processes and seeding.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import SecretStr

from sstools.sandbox import versions
from sstools.sandbox.errors import SandboxError

SERVICE_ACCOUNT = "sstools_svc"
PASSWORD_KEY = "SSTOOLS_SANDBOX_SUPERSET_PASSWORD"  # noqa: S105 - the name, not the value

Progress = Callable[[str], None]


def install(venv: Path, progress: Progress, version: str = versions.DEFAULT) -> None:
    """Create a Superset version's virtual environment once; again if its requirements change."""
    requirements = versions.requirements(version)
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()
    marker = venv / ".sstools-requirements"
    if marker.is_file() and marker.read_text() == digest:
        return
    progress(
        f"installing Apache Superset {version} into its own virtual environment (a minute or two)…"
    )
    started = time.monotonic()
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    result = subprocess.run(
        [*pip, "-r", str(requirements)], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        tail = "\n".join(result.stderr.splitlines()[-15:])
        raise SandboxError(f"installing Superset {version} failed:\n{tail}")
    marker.write_text(digest)
    progress(f"installed Superset {version} in {time.monotonic() - started:.0f} s")


def password(root: Path) -> SecretStr:
    """The service account's password from ``secrets.env`` (made once, mode 600)."""
    path = root / "secrets.env"
    if not path.is_file():
        root.mkdir(parents=True, exist_ok=True)
        draft = root / f".secrets.env.{os.getpid()}"
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(f"{PASSWORD_KEY}={secrets.token_urlsafe(24)}\n")
        # Linked whole or not at all: a fleet starting beside us reads the first password made.
        with contextlib.suppress(FileExistsError):
            os.link(draft, path)
        draft.unlink()
    for line in path.read_text().splitlines():
        key, _, value = line.partition("=")
        if key.strip() == PASSWORD_KEY:
            return SecretStr(value.strip())
    raise SandboxError(f"{path}: no {PASSWORD_KEY}; delete the file to make a new one")


DEMO_ENTRY = "http://127.0.0.1:8000/settings#superset-entry"


def write_config(folder: Path, metadata_db: Path) -> Path:
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
        "# Superset's own help menu links to the page with sstools' «Спросить агента» bookmarklet\n"
        "# (the app as `make demo` serves it).\n"
        f"DOCUMENTATION_URL = {DEMO_ENTRY!r}\n"
        "DOCUMENTATION_TEXT = 'sstools: Спросить агента'\n"
    )
    return config


def _superset(venv: Path, config: Path, *args: str) -> None:
    env = {**os.environ, "SUPERSET_CONFIG_PATH": str(config), "FLASK_APP": "superset"}
    result = subprocess.run(
        [str(venv / "bin" / "superset"), *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).splitlines()[-15:])
        raise SandboxError(f"`superset {args[0]}` failed:\n{tail}")


def template(root: Path, venv: Path, progress: Progress, version: str = versions.DEFAULT) -> Path:
    """One initialised metadata DB a version; each instance starts from a copy (not 3 inits)."""
    built = root / versions.template_name(version)
    if built.is_file():
        return built
    progress(f"initialising the Superset {version} metadata DB…")
    started = time.monotonic()
    building = root / f"{built.stem}-build"
    shutil.rmtree(building, ignore_errors=True)
    config = write_config(building, building / "superset.db")
    _superset(venv, config, "db", "upgrade")
    _superset(
        venv,
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
        password(root).get_secret_value(),
    )
    _superset(venv, config, "init")
    (building / "superset.db").replace(built)
    shutil.rmtree(building, ignore_errors=True)
    progress(f"initialised the metadata DB in {time.monotonic() - started:.0f} s")
    return built
