"""Personal access tokens (issue 35, sign-in): ``sstools tokens create`` prints a token once, as
its last line; it signs its user in as a Bearer token with the user's role at each call; a
revoked or expired token, or one of a removed user, is refused at once; only its hash is stored.
The CLI runs as a person runs it (a real subprocess, a real SQLite file); the app reads the same
file."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from sstools import clock
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.conftest import app_client, environments_for, make_settings
from tests.test_cli import _sstools


def _created(tmp_path: Path, username: str, name: str, *extra: str) -> str:
    made = _sstools(tmp_path, "tokens", "create", username, "--name", name, *extra)
    assert made.returncode == 0, made.stderr
    token = made.stdout.splitlines()[-1]  # printed once, as its last line
    assert token.startswith("sst_pat_")
    return token


@pytest.fixture
async def site(
    tmp_path: Path, fake_superset: FakeSuperset
) -> AsyncIterator[tuple[httpx.AsyncClient, Path]]:
    added = _sstools(tmp_path, "users", "add", "olga", "--role", "engineer", "--password", "pw-1")
    assert added.returncode == 0, added.stderr
    settings: Settings = make_settings(
        tmp_path, environments_for(tmp_path, fake_superset)
    ).model_copy(update={"database_url": f"sqlite:///{tmp_path / 'cli.db'}"})  # the CLI's file
    async with app_client(settings, RoutingTransport(fake_superset)) as client:
        yield client, tmp_path


async def _me(client: httpx.AsyncClient, token: str) -> httpx.Response:
    return await client.get("/api/auth/me", headers={"Authorization": f"Bearer {token}"})


async def test_a_token_signs_its_user_in_with_the_role_of_the_moment(
    site: tuple[httpx.AsyncClient, Path],
) -> None:
    client, folder = site
    token = _created(folder, "olga", "claude-desktop")
    me = await _me(client, token)
    assert me.status_code == 200, me.text
    assert (me.json()["username"], me.json()["role"]) == ("olga", "engineer")
    bearer = {"Authorization": f"Bearer {token}"}  # no CSRF header: a Bearer is no cookie
    chat = await client.post("/api/agent/conversations", headers=bearer)
    assert chat.status_code == 201, chat.text  # the agent's routes (and its tools) take it too
    demoted = _sstools(folder, "users", "set-role", "olga", "--role", "analyst")
    assert demoted.returncode == 0, demoted.stderr
    assert (await _me(client, token)).json()["role"] == Role.analyst.value  # at the next call
    listed = _sstools(folder, "tokens", "list", "olga")
    assert listed.stdout.startswith("claude-desktop\tcreated ")
    assert "\tused 20" in listed.stdout  # its last use is noted
    assert token not in listed.stdout + listed.stderr
    with sqlite3.connect(folder / "cli.db") as db:
        stored = db.execute("select token_hash from personal_tokens").fetchall()
    assert stored == [(hashlib.sha256(token.encode()).hexdigest(),)]  # never the token itself


async def test_a_revoked_token_and_a_removed_users_token_are_refused_at_once(
    site: tuple[httpx.AsyncClient, Path],
) -> None:
    client, folder = site
    token = _created(folder, "olga", "cursor")
    other = _created(folder, "olga", "script")
    assert (await _me(client, token)).status_code == 200
    assert _sstools(folder, "tokens", "revoke", "olga", "--name", "cursor").returncode == 0
    refused = await _me(client, token)
    assert refused.status_code == 401
    assert "токен доступа не найден или отозван" in refused.json()["detail"]
    assert (await _me(client, other)).status_code == 200  # its other token still works
    assert _sstools(folder, "users", "remove", "olga").returncode == 0
    assert (await _me(client, other)).status_code == 401
    guessed = await _me(client, "sst_pat_" + "A" * 43)
    assert guessed.status_code == 401


async def test_a_token_in_the_session_cookie_signs_nobody_in(
    site: tuple[httpx.AsyncClient, Path],
) -> None:
    client, folder = site
    token = _created(folder, "olga", "laptop")
    client.cookies.set("sstools_session", token)
    assert (await client.get("/api/auth/me")).status_code == 401  # the header only


async def test_an_expired_token_is_refused_and_a_name_is_one_token(
    site: tuple[httpx.AsyncClient, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, folder = site
    token = _created(folder, "olga", "ci", "--expires-days", "1")
    assert (await _me(client, token)).status_code == 200
    later = clock.now() + timedelta(days=1, seconds=1)
    monkeypatch.setattr(clock, "now", lambda: later)
    expired = await _me(client, token)
    assert expired.status_code == 401
    assert "срок действия токена доступа истёк" in expired.json()["detail"]
    again = _sstools(folder, "tokens", "create", "olga", "--name", "ci")
    assert again.returncode == 1
    assert "already has a token named 'ci'" in again.stderr
    for bad in ("", "   ", "a\nb", "x" * 65):
        refused = _sstools(folder, "tokens", "create", "olga", "--name", bad)
        assert refused.returncode == 2, (bad, refused.stdout)
        assert "--name must be 1 to 64 printable characters" in refused.stderr
        assert "sst_pat_" not in refused.stdout  # nothing made
    nobody = _sstools(folder, "tokens", "create", "nobody", "--name", "x")
    assert nobody.returncode == 1
    assert "no user 'nobody'" in nobody.stderr


async def test_the_api_makes_a_persons_own_tokens_from_a_session_only(
    site: tuple[httpx.AsyncClient, Path],
) -> None:
    client, _ = site
    signed = await client.post("/api/auth/login", json={"username": "olga", "password": "pw-1"})
    assert signed.status_code == 200, signed.text
    session = {"Authorization": f"Bearer {signed.json()['access_token']}"}
    made = await client.post("/api/auth/tokens", json={"name": "cursor"}, headers=session)
    assert made.status_code == 201, made.text
    token = made.json()["token"]
    listed = (await client.get("/api/auth/tokens", headers=session)).json()
    assert [one["name"] for one in listed] == ["cursor"]
    assert token not in str(listed)
    again = await client.post("/api/auth/tokens", json={"name": "cursor"}, headers=session)
    assert (again.status_code, again.json()["detail"]) == (
        409,
        "токен «cursor» у вас уже есть: выберите другое имя или отзовите его",
    )
    minted = await client.post(
        "/api/auth/tokens", json={"name": "more"}, headers={"Authorization": f"Bearer {token}"}
    )
    assert minted.status_code == 403  # a token that leaks mints no more
    # C1 controls and unassigned characters are not printable either (the fuzz found a 500 there)
    for name in ("", "a\nb", "\u0083ci", "ci\U000e0fff", "x" * 65):
        refused = await client.post("/api/auth/tokens", json={"name": name}, headers=session)
        assert refused.status_code == 422, (name, refused.text)
        assert refused.json()["detail"][0]["loc"] == ["body", "name"]
        assert "от 1 до 64 печатных символов" in refused.json()["detail"][0]["msg"]
    no_days = {"name": "x", "expires_days": 0}
    assert (await client.post("/api/auth/tokens", json=no_days, headers=session)).status_code == 422
    gone = await client.delete("/api/auth/tokens/nothing", headers=session)
    assert (gone.status_code, gone.json()["detail"]) == (404, "токена «nothing» у вас нет")
    assert (await client.delete("/api/auth/tokens/cursor", headers=session)).status_code == 204
    assert (await _me(client, token)).status_code == 401
