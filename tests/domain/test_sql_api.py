"""``/api/sql/execute`` against a Superset faked at the transport: a write that fails is audited."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable

import anyio
import httpx
import pytest

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.storage.models import AuditEntry
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.conftest import AuthHeaders, app_client

EXECUTE_PATH = "/api/v1/sqllab/execute/"
WRITE = "delete from regions where region = 'Москва'"
Failure = Callable[[httpx.Request], Awaitable[httpx.Response]]


class SqlLabFails(httpx.AsyncBaseTransport):
    """The fake Superset, except that SQL Lab's execute answers with ``failure``."""

    def __init__(self, fake: FakeSuperset, failure: Failure) -> None:
        self._routing = RoutingTransport(fake)
        self._failure = failure
        self.executions = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.host == "superset.test" and request.url.path == EXECUTE_PATH:
            self.executions += 1
            return await self._failure(request)
        return await self._routing.handle_async_request(request)


async def _server_error(request: httpx.Request) -> httpx.Response:
    return httpx.Response(500, json={"message": "worker lost"})


async def _timeout(request: httpx.Request) -> httpx.Response:
    raise httpx.ReadTimeout("timed out", request=request)


async def _query_error(request: httpx.Request) -> httpx.Response:
    errors = [{"error_type": "GENERIC_DB_ENGINE_ERROR", "message": "no such table: regions"}]
    return httpx.Response(500, json={"errors": errors, "message": "no such table: regions"})


@contextlib.asynccontextmanager
async def _client_with(
    settings: Settings, transport: httpx.AsyncBaseTransport
) -> AsyncIterator[httpx.AsyncClient]:
    async with app_client(settings, transport) as client:
        yield client


async def _audit(client: httpx.AsyncClient) -> list[tuple[str, str, str | None, str]]:
    services = client._transport.app.state.services  # type: ignore[attr-defined]
    async with services.sessions() as session:
        rows = (await session.execute(AuditEntry.__table__.select())).all()
    return [(row.action, row.outcome, row.username, row.detail.get("sql", "")) for row in rows]


@pytest.mark.parametrize(
    ("failure", "status", "outcome"),
    [
        (_server_error, 503, "unknown"),  # Superset broke mid-way: the write may have run
        (_timeout, 503, "unknown"),
        (_query_error, 422, "error"),  # the database refused the statement
    ],
)
async def test_a_failed_engineer_write_is_audited_and_still_reported(
    settings: Settings,
    fake_superset: FakeSuperset,
    auth: AuthHeaders,
    failure: Failure,
    status: int,
    outcome: str,
) -> None:
    transport = SqlLabFails(fake_superset, failure)
    async with _client_with(settings, transport) as client:
        response = await client.post(
            "/api/sql/execute?env_id=ss-dev",
            json={"database_id": 1, "sql": WRITE},
            headers=auth(Role.engineer),
        )
        assert response.status_code == status, response.text
        assert transport.executions == 1
        assert await _audit(client) == [("sql_execute", outcome, "engineer", WRITE)]


async def test_a_write_cut_off_by_the_client_going_away_is_audited(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    """Cancelled as servers cancel a request: in an anyio scope, every later await is cancelled."""
    reached_superset = anyio.Event()

    async def hang(request: httpx.Request) -> httpx.Response:
        reached_superset.set()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async with _client_with(settings, SqlLabFails(fake_superset, hang)) as client:
        async with anyio.create_task_group() as requests:
            requests.start_soon(
                functools.partial(
                    client.post,
                    "/api/sql/execute?env_id=ss-dev",
                    json={"database_id": 1, "sql": WRITE},
                    headers=auth(Role.engineer),
                )
            )
            with anyio.fail_after(10):
                await reached_superset.wait()
            requests.cancel_scope.cancel()
        assert await _audit(client) == [("sql_execute", "unknown", "engineer", WRITE)]


async def test_a_successful_write_is_audited_once_and_a_read_not_at_all(
    client: httpx.AsyncClient, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    for sql in (WRITE, "select count(*) from regions"):
        response = await client.post(
            "/api/sql/execute?env_id=ss-dev",
            json={"database_id": 1, "sql": sql},
            headers=auth(Role.engineer),
        )
        assert response.status_code == 200, response.text
    assert fake_superset.executed_sql == [WRITE, "select count(*) from regions"]
    assert await _audit(client) == [("sql_execute", "ok", "engineer", WRITE)]


async def test_sql_the_database_dialect_cannot_tokenize_is_422_not_500(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    response = await client.post(
        "/api/sql/execute?env_id=ss-dev",
        json={"database_id": 1, "sql": "select E'\\'' as x"},
        headers=auth(Role.analyst),
    )
    assert response.status_code == 422
    error = response.json()["detail"][0]
    assert error["loc"] == ["body", "sql"]
    assert "в строке 1, столбец 9" in error["msg"]  # the quote SQLite reads as never closed


async def test_an_analyst_write_hidden_from_other_dialects_is_refused(
    client: httpx.AsyncClient, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    """SQLite runs the DELETE after the comment closes; the nesting reading would not see it."""
    response = await client.post(
        "/api/sql/execute?env_id=ss-dev",
        json={"database_id": 1, "sql": "select 1 /* /* */ ; delete from regions; -- */"},
        headers=auth(Role.analyst),
    )
    assert response.status_code == 403
    assert fake_superset.executed_sql == []


async def test_an_analyst_is_told_why_a_statement_keyword_alias_is_refused(
    client: httpx.AsyncClient, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    """SQL Server would run ``DELETE FROM regions`` after ``SELECT 1``: refused, with why."""
    response = await client.post(
        "/api/sql/execute?env_id=ss-dev",
        json={"database_id": 1, "sql": "select 1 delete from regions"},
        headers=auth(Role.analyst),
    )
    assert response.status_code == 403
    assert "где между операторами не нужна «;»" in response.text
    assert fake_superset.executed_sql == []
