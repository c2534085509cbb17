"""The `sstools` command as a person runs it (a real subprocess, a real SQLite file)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import httpx

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.config import Settings
from tests.conftest import write_environments_file
from tests.rig import run_sstools, unanswering_dev_environment


def _sstools(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {
        **os.environ,
        "SSTOOLS_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
        "SSTOOLS_ENVIRONMENTS_FILE": str(tmp_path / "environments.yaml"),
        **env,
    }
    return run_sstools(tmp_path, environ, *args)


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
    assert "at least 32 characters" in result.stderr


def _live_settings(tmp_path: Path) -> Settings:
    environments = unanswering_dev_environment(tmp_path)
    return Settings(
        _env_file=None,
        database_url=f"sqlite:///{tmp_path / 'cli.db'}",
        environments_file=environments,
        checkpoints_file=tmp_path / "checkpoints.db",
    )


async def _me(settings: Settings, token: str) -> httpx.Response:
    """``GET /api/auth/me`` with ``token`` against a fresh app on the CLI's database."""
    app = create_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client,
    ):
        return await client.get("/api/auth/me", headers={"Authorization": f"Bearer {token}"})


async def test_set_role_and_remove_take_effect_on_tokens_already_issued(tmp_path: Path) -> None:
    added = _sstools(tmp_path, "users", "add", "olga", "--role", "engineer", "--password", "pw-1")
    assert added.returncode == 0, added.stderr
    settings = _live_settings(tmp_path)
    token = issue_token(settings, Principal(username="olga", role=Role.engineer))
    assert (await _me(settings, token)).json()["role"] == "engineer"

    demoted = _sstools(tmp_path, "users", "set-role", "olga", "--role", "analyst")
    assert demoted.returncode == 0, demoted.stderr
    assert demoted.stdout.strip() == "user olga (analyst)"
    assert (await _me(settings, token)).json()["role"] == "analyst"
    assert _sstools(tmp_path, "users", "list").stdout.splitlines() == ["olga\tanalyst"]

    removed = _sstools(tmp_path, "users", "remove", "olga")
    assert removed.returncode == 0, removed.stderr
    assert removed.stdout.strip() == "removed user olga"
    assert (await _me(settings, token)).status_code == 401
    assert _sstools(tmp_path, "users", "list").stdout == ""


def test_set_role_and_remove_name_an_unknown_user(tmp_path: Path) -> None:
    for args in (("set-role", "ghost", "--role", "admin"), ("remove", "ghost")):
        result = _sstools(tmp_path, "users", *args)
        assert result.returncode == 1, args
        assert "no user 'ghost'" in result.stderr


async def test_upsert_with_a_new_password_revokes_tokens(tmp_path: Path) -> None:
    _sstools(tmp_path, "users", "add", "olga", "--role", "engineer", "--password", "pw-1")
    settings = _live_settings(tmp_path)
    token = issue_token(settings, Principal(username="olga", role=Role.engineer))
    upserted = _sstools(
        tmp_path, "users", "add", "olga", "--role", "engineer", "--password", "pw-2", "--upsert"
    )
    assert upserted.returncode == 0, upserted.stderr
    assert (await _me(settings, token)).status_code == 401
