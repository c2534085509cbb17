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
from sstools.auth.secret import signing_key
from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import add_user, remove_user, set_role
from sstools.config import Settings
from sstools.http.services import Services
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
    assert response.json() == {"detail": "неверное имя пользователя или пароль"}
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
        "ver": 0,
        "aud": settings.jwt_audience,
        "iat": now,
        "exp": now + timedelta(minutes=5),
    }
    claims.update(changes)
    claims = {k: v for k, v in claims.items() if v is not None}
    return jwt.encode(claims, signing_key(settings), algorithm="HS256")


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
    return jwt.encode(claims, None, algorithm="none")  # type: ignore[arg-type]  # the attack itself


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
        signing_key(s) + "-" * 40,
        algorithm="HS512",
    ),
    "no exp": lambda s: _forge(s, exp=None),
    "no role": lambda s: _forge(s, role=None),
    "unknown role": lambda s: _forge(s, role="superuser"),
    "garbage": lambda s: "not.a.jwt",
    "no version": lambda s: _forge(s, ver=None),
    "old public development secret": lambda s: jwt.encode(
        {
            "sub": "analyst",
            "role": "analyst",
            "ver": 0,
            "aud": s.jwt_audience,
            "iat": datetime.now(UTC),
            "exp": datetime.now(UTC) + timedelta(minutes=5),
        },
        "sstools-development-secret-do-not-use-in-production",
        algorithm="HS256",
    ),
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
    assert "вы не вошли" in response.json()["detail"]


async def test_short_ttl_token_expires(client: httpx.AsyncClient, settings: Settings) -> None:
    token = issue_token(settings, Principal(username="analyst", role=Role.analyst), ttl_s=-1)
    response = await client.get("/api/auth/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
    assert response.json()["detail"] == "срок действия токена истёк"


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
    assert "нужна роль «инженер» (ваша роль — «аналитик»)" in response.json()["detail"]


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


def _services(client: httpx.AsyncClient) -> Services:
    services: Services = client._transport.app.state.services  # type: ignore[attr-defined]
    return services


async def _login(client: httpx.AsyncClient, role: Role) -> str:
    response = await client.post(
        "/api/auth/login", json={"username": role.value, "password": PASSWORDS[role]}
    )
    assert response.status_code == 200, response.text
    token: str = response.json()["access_token"]
    return token


async def test_a_demoted_users_token_gets_the_new_roles_answers_at_once(
    client: httpx.AsyncClient,
) -> None:
    token = await _login(client, Role.engineer)
    headers = {"Authorization": f"Bearer {token}"}
    write = {"database_id": 1, "sql": "delete from energy where 1 = 0"}
    execute = "/api/sql/execute?env_id=ss-dev"
    assert (await client.post(execute, json=write, headers=headers)).status_code == 200
    async with _services(client).sessions() as session:
        assert await set_role(session, "engineer", Role.analyst) is True
    refused = await client.post(execute, json=write, headers=headers)
    assert refused.status_code == 403
    assert refused.json()["required_role"] == "engineer"
    assert (await client.get("/api/auth/me", headers=headers)).json()["role"] == "analyst"


async def test_a_promoted_users_token_gets_the_new_role_without_signing_in_again(
    client: httpx.AsyncClient,
) -> None:
    token = await _login(client, Role.analyst)
    async with _services(client).sessions() as session:
        await set_role(session, "analyst", Role.engineer)
    me = await client.get("/api/auth/me", headers={"Authorization": f"Bearer {token}"})
    assert me.json() == {"username": "analyst", "role": "engineer"}


async def test_a_password_change_signs_the_user_out_everywhere(
    client: httpx.AsyncClient,
) -> None:
    token = await _login(client, Role.analyst)
    async with _services(client).sessions() as session:
        await add_user(session, "analyst", Role.analyst, "a-new-password", upsert=True)
    me = await client.get("/api/auth/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 401


async def test_a_removed_users_token_is_401(client: httpx.AsyncClient) -> None:
    token = await _login(client, Role.admin)
    async with _services(client).sessions() as session:
        assert await remove_user(session, "admin") is True
    response = await client.get("/api/auth/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
    assert "войдите снова" in response.json()["detail"]


async def test_a_recreated_user_does_not_inherit_the_old_accounts_tokens(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    # Signed by us, version 0, but issued before this account existed: an earlier "admin"'s.
    old = _forge(settings, sub="admin", role="admin", iat=datetime.now(UTC) - timedelta(hours=1))
    response = await client.get("/api/auth/me", headers={"Authorization": f"Bearer {old}"})
    assert response.status_code == 401


async def test_logout_revokes_the_bearer_token(client: httpx.AsyncClient) -> None:
    token = await _login(client, Role.engineer)
    headers = {"Authorization": f"Bearer {token}"}
    assert (await client.post("/api/auth/logout", headers=headers)).status_code == 204
    response = await client.get("/api/auth/me", headers=headers)
    assert response.status_code == 401
    assert "войдите снова" in response.json()["detail"]


async def test_logout_by_cookie_needs_the_csrf_header_then_revokes(
    client: httpx.AsyncClient,
) -> None:
    login = await client.post(
        "/api/auth/login", json={"username": "analyst", "password": PASSWORDS[Role.analyst]}
    )
    token = login.json()["access_token"]
    csrf = login.cookies["sstools_csrf"]
    # A cross-site form post carries the cookie but cannot set the header.
    forged = await client.post("/api/auth/logout")
    assert forged.status_code == 403
    assert (await client.get("/api/auth/me")).status_code == 200
    logout = await client.post("/api/auth/logout", headers={"X-CSRF-Token": csrf})
    assert logout.status_code == 204
    client.cookies.set("sstools_session", token)
    assert (await client.get("/api/auth/me")).status_code == 401
    page = await client.get("/dashboards")
    assert page.status_code == 303  # the revoked cookie no longer opens pages either
    assert page.headers["location"].startswith("/login")
