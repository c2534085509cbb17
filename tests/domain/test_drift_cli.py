"""`sstools drift` as CI runs it, without Superset: an unknown environment is refused by name,
and an environment that does not answer is said (exit 3 with --exit-code), never a traceback."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import write_environments_file
from tests.rig import run_sstools


def _drift(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environ = {
        **os.environ,
        "SSTOOLS_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
        "SSTOOLS_ENVIRONMENTS_FILE": str(tmp_path / "environments.yaml"),
        "SSTOOLS_GIT_DIR": str(tmp_path / "git"),
        "SSTOOLS_SUPERSET_TIMEOUT_S": "2",
    }
    return run_sstools(tmp_path, environ, "drift", *args)


def _stopped_fleet(tmp_path: Path) -> None:
    account = {"username": "svc", "password_env": "SSTOOLS_TEST_NO_PASSWORD"}
    write_environments_file(
        tmp_path,
        [
            {"id": "dev", "name": "Dev", "stage": "dev", "url": "http://127.0.0.1:9", **account},
            {"id": "live", "name": "Live", "stage": "prod", "url": "http://127.0.0.1:9", **account},
        ],
        {"SSTOOLS_TEST_NO_PASSWORD": "x"},
    )


def test_an_unknown_environment_is_refused_by_name(tmp_path: Path) -> None:
    _stopped_fleet(tmp_path)
    refused = _drift(tmp_path, "--env", "nowhere", "--exit-code")
    assert refused.returncode == 2
    assert "no environment nowhere (known: dev, live)" in refused.stderr


def test_a_silent_environment_is_said_and_fails_the_check(tmp_path: Path) -> None:
    _stopped_fleet(tmp_path)
    said = _drift(tmp_path, "--env", "live", "--exit-code")
    assert said.returncode == 3, said.stdout + said.stderr
    assert said.stdout.startswith("Live (live): не отвечает (")
    assert "Traceback" not in said.stderr
    quiet = _drift(tmp_path, "--env", "live")  # without --exit-code: said, exit 0
    assert quiet.returncode == 0
