"""The `sstools` command as a person runs it (a real subprocess, a real SQLite file)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import write_environments_file


def _sstools(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {
        **os.environ,
        "SSTOOLS_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
        "SSTOOLS_ENVIRONMENTS_FILE": str(tmp_path / "environments.yaml"),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "sstools", *args],
        env=environ,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_users_add_and_list(tmp_path: Path) -> None:
    added = _sstools(tmp_path, "users", "add", "olga", "--role", "engineer", "--password", "pw-1")
    assert added.returncode == 0, added.stderr
    again = _sstools(tmp_path, "users", "add", "olga", "--role", "admin", "--password", "pw-2")
    assert again.returncode == 1
    assert "exists (use --upsert" in again.stderr
    upserted = _sstools(
        tmp_path, "users", "add", "olga", "--role", "admin", "--password", "pw-2", "--upsert"
    )
    assert upserted.returncode == 0
    listed = _sstools(tmp_path, "users", "list")
    assert listed.stdout.splitlines() == ["olga\tadmin"]
    assert "pw-2" not in listed.stdout + listed.stderr


def test_users_add_rejects_unknown_role(tmp_path: Path) -> None:
    result = _sstools(tmp_path, "users", "add", "x", "--role", "superuser", "--password", "p")
    assert result.returncode == 2
    assert "superuser" in result.stderr


def test_serve_stops_on_a_bad_environments_file(tmp_path: Path) -> None:
    write_environments_file(
        tmp_path,
        [
            {
                "id": "prod",
                "name": "Prod",
                "stage": "production",
                "url": "http://127.0.0.1:1",
                "username": "svc",
                "password_env": "PW",
            }
        ],
        secrets={"PW": "x"},
    )
    result = _sstools(tmp_path, "serve", "--port", "1")
    assert result.returncode == 2
    assert "environments.yaml: entry 1 (id 'prod'): field 'stage'" in result.stderr


def test_serve_refuses_the_default_secret_in_production(tmp_path: Path) -> None:
    result = _sstools(tmp_path, "serve", SSTOOLS_MODE="production")
    assert result.returncode == 2
    assert "SSTOOLS_JWT_SECRET is the development default" in result.stderr
