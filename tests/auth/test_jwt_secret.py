"""Without SSTOOLS_JWT_SECRET an installation gets its own random key, kept beside its database."""

from __future__ import annotations

import stat
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import jwt
import pytest

from sstools.auth.secret import read_or_create_secret, secret_file_path, signing_key
from sstools.config import Settings

PUBLISHED_CONSTANT = "sstools-development-secret-do-not-use-in-production"


def _settings(folder: Path, **overrides: object) -> Settings:
    return Settings(
        _env_file=None,
        database_url=f"sqlite:///{folder / 'sstools.db'}",
        **overrides,  # type: ignore[arg-type]
    )


def test_the_secret_lives_beside_a_sqlite_database(tmp_path: Path) -> None:
    assert secret_file_path(_settings(tmp_path / "a")) == tmp_path / "a" / "jwt-secret"
    postgres = Settings(_env_file=None, database_url="postgresql://u@h/db")
    assert secret_file_path(postgres) == Path(".sstools") / "jwt-secret"
    chosen = _settings(tmp_path, jwt_secret_file=tmp_path / "keys" / "jwt")
    assert secret_file_path(chosen) == tmp_path / "keys" / "jwt"


def test_one_folder_one_secret_mode_600_a_fresh_folder_another(tmp_path: Path) -> None:
    first = signing_key(_settings(tmp_path / "one"))
    again = signing_key(_settings(tmp_path / "one"))
    assert first == again == read_or_create_secret(tmp_path / "one" / "jwt-secret")
    assert len(first) >= 32
    assert first != PUBLISHED_CONSTANT
    mode = stat.S_IMODE((tmp_path / "one" / "jwt-secret").stat().st_mode)
    assert mode == 0o600
    assert signing_key(_settings(tmp_path / "two")) != first


def test_workers_starting_together_agree_on_one_secret(tmp_path: Path) -> None:
    path = tmp_path / "race" / "jwt-secret"
    with ThreadPoolExecutor(16) as pool:
        secrets = set(pool.map(lambda _: read_or_create_secret(path), range(64)))
    assert len(secrets) == 1
    assert list(path.parent.iterdir()) == [path]  # no temporary files left behind


def test_the_explicit_setting_wins(tmp_path: Path) -> None:
    settings = _settings(tmp_path, jwt_secret="x" * 40)
    assert signing_key(settings) == "x" * 40
    assert not (tmp_path / "jwt-secret").exists()


def test_the_published_constant_is_refused_as_a_setting() -> None:
    with pytest.raises(ValueError, match="published"):
        Settings(_env_file=None, jwt_secret=PUBLISHED_CONSTANT)


def test_production_needs_its_own_long_secret() -> None:
    with pytest.raises(ValueError, match="SSTOOLS_JWT_SECRET"):
        Settings(_env_file=None, mode="production")
    with pytest.raises(ValueError, match="at least 32 characters"):
        Settings(_env_file=None, mode="production", jwt_secret="short")


async def test_a_token_signed_with_the_old_public_constant_is_refused(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    now = datetime.now(UTC)
    claims = {"sub": "admin", "role": "admin", "ver": 0, "aud": settings.jwt_audience}
    forged = jwt.encode(
        {**claims, "iat": now, "exp": now + timedelta(minutes=5)},
        PUBLISHED_CONSTANT,
        algorithm="HS256",
    )
    response = await client.get("/api/auth/me", headers={"Authorization": f"Bearer {forged}"})
    assert response.status_code == 401
