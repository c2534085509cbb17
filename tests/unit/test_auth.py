"""Login, tokens and roles: every bad token is a 401, a low role is a 403 naming the role."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import httpx
import jwt
import pytest

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.config import Settings
from sstools.storage.models import AuditEntry
from tests.conftest import PASSWORDS, AuthHeaders


async def test_login_returns_a_token_and_sets_httponly_samesite_cookie(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(
        "/api/auth/login", json={"username": "engineer", "password": PASSWORDS[Role.engineer]}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["token_type"] == "bearer"
    assert body["role"] == "engineer"
    cookies = response.headers.get_list("set-cookie")
    session = next(c for c in cookies if c.startswith("sstools_session="))
    assert "HttpOnly" in session
    assert "SameSite=lax" in session
    assert body["access_token"] in session
    me = await client.get(
        "/api/auth/me", headers={"Authorization": f"Bearer {body['access_token']}"}
    )
    assert me.json() == {"username": "engineer", "role": "engineer"}


async def test_wrong_password_is_401_and_audited(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    response = await client.post(
        "/api/auth/login", json={"username": "engineer", "password": "nope"}
    )
    assert response.status_code == 401
    assert response.json() == {"detail": "invalid username or password"}
    app_services = client._transport.app.state.services  # type: ignore[attr-defined]
    async with app_services.sessions() as session:
        entries = (await session.execute(AuditEntry.__table__.select())).all()
    assert [(e.action, e.outcome, e.username) for e in entries] == [
        ("login", "refused", "engineer")
    ]


async def test_login_validates_fields(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/auth/login", json={"username": ""})
    assert response.status_code == 422
    fields = {tuple(error["loc"]) for error in response.json()["detail"]}
    assert ("body", "username") in fields
    assert ("body", "password") in fields


def _forge(settings: Settings, **changes: object) -> str:
    now = datetime.now(UTC)
    claims: dict[str, object] = {
        "sub": "analyst",
        "role": "analyst",
        "aud": settings.jwt_audience,
        "iat": now,
        "exp": now + timedelta(minutes=5),
    }
    claims.update(changes)
    claims = {k: v for k, v in claims.items() if v is not None}
    return jwt.encode(claims, settings.jwt_secret.get_secret_value(), algorithm="HS256")


def _tampered_role(settings: Settings) -> str:
    header, payload, signature = _forge(settings).split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claims["role"] = "admin"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"{header}.{forged}.{signature}"


def _alg_none(settings: Settings) -> str:
    now = datetime.now(UTC)
    claims = {
        "sub": "x",
        "role": "admin",
        "aud": settings.jwt_audience,
        "iat": now,
        "exp": now + timedelta(minutes=5),
    }
    return jwt.encode(claims, None, algorithm="none")


TOKEN_VECTORS: dict[str, Callable[[Settings], str]] = {
    "alg none": _alg_none,
    "expired": lambda s: _forge(s, exp=datetime.now(UTC) - timedelta(seconds=1)),
    "wrong audience": lambda s: _forge(s, aud="someone-else"),
    "tampered role": _tampered_role,
    "other secret": lambda s: jwt.encode(
        {
            "sub": "x",
            "role": "admin",
            "aud": s.jwt_audience,
            "iat": datetime.now(UTC),
            "exp": datetime.now(UTC) + timedelta(minutes=5),
        },
        "another-secret-of-sufficient-length-000",
        algorithm="HS256",
    ),
    "HS512": lambda s: jwt.encode(
        {
            "sub": "x",
            "role": "admin",
            "aud": s.jwt_audience,
            "iat": datetime.now(UTC),
            "exp": datetime.now(UTC) + timedelta(minutes=5),
        },
        s.jwt_secret.get_secret_value() + "-" * 40,
        algorithm="HS512",
    ),
    "no exp": lambda s: _forge(s, exp=None),
    "no role": lambda s: _forge(s, role=None),
    "unknown role": lambda s: _forge(s, role="superuser"),
    "garbage": lambda s: "not.a.jwt",
}


@pytest.mark.parametrize("vector", sorted(TOKEN_VECTORS))
async def test_bad_tokens_are_401(
    client: httpx.AsyncClient, settings: Settings, vector: str
) -> None:
    token = TOKEN_VECTORS[vector](settings)
    response = await client.get("/api/auth/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401, vector
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["detail"]


async def test_missing_token_is_401(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/environments")
    assert response.status_code == 401
    assert "not authenticated" in response.json()["detail"]


async def test_short_ttl_token_expires(client: httpx.AsyncClient, settings: Settings) -> None:
    token = issue_token(settings, Principal(username="analyst", role=Role.analyst), ttl_s=-1)
    response = await client.get("/api/auth/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
    assert response.json()["detail"] == "token expired"


async def test_low_role_gets_403_naming_the_required_role(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    response = await client.put(
        "/api/datasets/1/review?env_id=ss-dev",
        json={"status": "approved"},
        headers=auth(Role.analyst),
    )
    assert response.status_code == 403
    assert response.json()["required_role"] == "engineer"
    assert "requires role engineer" in response.json()["detail"]


async def test_cookie_session_needs_csrf_header_for_state_changes(
    client: httpx.AsyncClient,
) -> None:
    login = await client.post(
        "/api/auth/login", json={"username": "analyst", "password": PASSWORDS[Role.analyst]}
    )
    csrf = login.cookies["sstools_csrf"]
    # Reads ride on the cookie alone.
    assert (await client.get("/api/auth/me")).status_code == 200
    body = {"sql": "select 1"}
    without = await client.post("/api/sql/format", json=body)
    assert without.status_code == 403
    assert "X-CSRF-Token" in without.json()["detail"]
    wrong = await client.post("/api/sql/format", json=body, headers={"X-CSRF-Token": "guess"})
    assert wrong.status_code == 403
    right = await client.post("/api/sql/format", json=body, headers={"X-CSRF-Token": csrf})
    assert right.status_code == 200
