"""HTTP edge hardening: body size limit, odd JSON, 422 echoes, 500s, security and cache headers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.conftest import AuthHeaders, app_client, environments_for, make_settings, seed_users

MIB = 1024 * 1024
JSON = {"content-type": "application/json"}
MAX_BODY_BYTES = Settings.model_fields["max_body_bytes"].default
# A few MiB over the limit proves the 413 as well as 50 MB does, and is built once.
OVERSIZED_LOGIN = b'{"username": "' + b"a" * (MAX_BODY_BYTES + 3 * MIB) + b'", "password": "x"}'


# One app for the module: none of these tests changes its state, and seeding users costs seconds.
@pytest.fixture(scope="module")
def fake_superset() -> FakeSuperset:
    return FakeSuperset()


@pytest.fixture(scope="module")
async def settings(
    tmp_path_factory: pytest.TempPathFactory, fake_superset: FakeSuperset
) -> Settings:
    folder: Path = tmp_path_factory.mktemp("hardening")
    settings = make_settings(folder, environments_for(folder, fake_superset))
    await seed_users(settings)
    return settings


@pytest.fixture(scope="module")
async def client(
    settings: Settings, fake_superset: FakeSuperset
) -> AsyncIterator[httpx.AsyncClient]:
    async with app_client(settings, RoutingTransport(fake_superset)) as client:
        yield client


def assert_security_headers(response: httpx.Response) -> None:
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["cache-control"] == "no-store"


async def test_an_oversized_login_body_is_refused_413_without_echo(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post("/api/auth/login", content=OVERSIZED_LOGIN, headers=JSON)
    assert response.status_code == 413
    assert len(response.content) < 300
    assert response.json()["detail"].startswith("тело запроса больше предела")
    assert_security_headers(response)


async def test_a_chunked_body_is_cut_off_while_it_streams(client: httpx.AsyncClient) -> None:
    sent: list[int] = []

    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"username": "'
        for _ in range(50):  # 50 MiB if it were all read
            sent.append(MIB)
            yield b"a" * MIB
        yield b'", "password": "x"}'

    response = await client.post("/api/auth/login", content=chunks(), headers=JSON)
    assert response.status_code == 413
    assert len(response.content) < 300
    assert sum(sent) <= 4 * MIB  # reading stopped soon after the limit


async def test_the_largest_legitimate_body_fits(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    """100 000 characters of Cyrillic SQL, each escaped as ``\\uXXXX`` (6 bytes): about 600 kB."""
    sql = "SELECT '" + "ж" * (100_000 - 10) + "'"
    body = json.dumps({"sql": sql}).encode()
    assert len(body) > MIB / 2
    response = await client.post(
        "/api/sql/format", content=body, headers={**JSON, **auth(Role.analyst)}
    )
    assert response.status_code == 200


ODD_JSON = {
    "nan": b'{"username": "engineer", "password": NaN}',
    "infinity": b'{"username": "engineer", "password": -Infinity}',
    "overflowing float": b'{"username": "engineer", "password": 1e999}',
    "lone surrogate in a bad field": b'{"username": "\\ud800", "password": 1}',
    "lone surrogate in a good field": b'{"username": "engineer", "password": "\\udc00x"}',
    "raw surrogate bytes": b'{"username": "\xed\xa0\x80", "password": "x"}',
    "not utf-8": b'{"username": "\xff", "password": "x"}',
    "huge int": b'{"username": ' + b"9" * 5000 + b', "password": "x"}',
    "int beyond 64 bits": b'{"username": 99999999999999999999, "password": "x"}',
    "deep nesting": b'{"username": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "moderate nesting": b'{"username": "a", "x": ' + b"[" * 500 + b"]" * 500 + b"}",
}


# Every case on the login route, with and without a token; a sample on an authenticated route.
ODD_JSON_CASES = [
    pytest.param(path, role, body, id=f"{name}-{path}-{role}")
    for name, body in ODD_JSON.items()
    for path, role in [("/api/auth/login", None), ("/api/auth/login", Role.engineer)]
] + [
    pytest.param("/api/sql/format", Role.engineer, ODD_JSON[name], id=f"{name}-/api/sql/format")
    for name in ("nan", "lone surrogate in a good field", "not utf-8", "huge int", "deep nesting")
]


@pytest.mark.parametrize(("path", "role", "body"), ODD_JSON_CASES)
async def test_odd_json_is_a_422_with_security_headers(
    client: httpx.AsyncClient, auth: AuthHeaders, role: Role | None, path: str, body: bytes
) -> None:
    headers = {**JSON, **(auth(role) if role else {})}
    response = await client.post(path, content=body, headers=headers)
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert detail[0]["loc"][0] == "body"
    assert detail[0]["msg"]
    assert_security_headers(response)


async def test_a_422_trims_the_input_it_echoes(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/auth/login", json={"username": "u" * 100_000, "password": "x"}
    )
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert error["loc"] == ["body", "username"]
    assert len(error["input"]) <= 201
    assert len(response.content) < 1000


@pytest.mark.parametrize(
    ("body", "redacted"),
    [
        ({"username": "engineer", "password": ["hunter2-secret"]}, True),  # the secret's own error
        ({"password": "hunter2-secret"}, True),  # missing username: the whole body is the input
        ({"username": {"api_key": "hunter2-secret", "a": 1}, "password": "p"}, True),  # nested
        ({"username": "x" * 65, "password": "hunter2-secret"}, False),  # not part of the error
    ],
)
async def test_a_422_never_echoes_secrets(
    client: httpx.AsyncClient, body: object, redacted: bool
) -> None:
    response = await client.post("/api/auth/login", json=body)
    assert response.status_code == 422
    assert "hunter2" not in response.text
    assert ("[redacted]" in response.text) is redacted


@pytest.fixture
async def crashing_client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The app whose Superset transport fails in a way nothing expects: an unhandled error."""

    def explode(request: httpx.Request) -> httpx.Response:
        raise RuntimeError("internal detail: SELECT secret FROM vault")

    exploding = httpx.MockTransport(explode)
    async with app_client(settings, exploding, raise_app_exceptions=False) as client:
        yield client


async def test_a_500_is_plain_json_with_security_headers(
    crashing_client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    response = await crashing_client.get("/api/databases?env_id=ss-dev", headers=auth(Role.analyst))
    assert response.status_code == 500
    assert response.json() == {"detail": "внутренняя ошибка сервера; она записана в журнал"}
    assert "SELECT" not in response.text
    assert_security_headers(response)


async def test_api_and_pages_are_no_store_but_static_assets_are_not(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    for path in ("/api/auth/me", "/api/environments"):
        response = await client.get(path, headers=auth(Role.analyst))
        assert response.headers["cache-control"] == "no-store", path
    unauthenticated = await client.get("/api/auth/me")
    assert unauthenticated.status_code == 401
    assert unauthenticated.headers["cache-control"] == "no-store"
    page = await client.get("/dashboards?env_id=ss-dev")  # no session: the redirect to /login
    assert page.headers["cache-control"] == "no-store"
    asset = await client.get("/static/app.css")
    assert asset.status_code == 200
    assert "no-store" not in asset.headers.get("cache-control", "")
    assert "script-src 'self'" in asset.headers["content-security-policy"]
