"""SQL on the real sandbox: analysts get 403 for every write and the data stays as it was."""

from __future__ import annotations

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.storage.models import AuditEntry
from tests.conftest import AuthHeaders
from tests.sql.data.sql_verdicts import DEMO_READS, HIDDEN_WRITES, WRITES

COUNT_SQL = "select count(*) as n, sum(population_thousands) as total from regions"


async def _demo_database(client: httpx.AsyncClient, auth: AuthHeaders) -> int:
    databases = (
        await client.get("/api/databases?env_id=ss-dev", headers=auth(Role.analyst))
    ).json()
    return int(next(db["id"] for db in databases if db["name"] == "Демо-данные"))


async def _run(
    client: httpx.AsyncClient, auth: AuthHeaders, role: Role, sql: str, **extra: object
) -> httpx.Response:
    return await client.post(
        "/api/sql/execute?env_id=ss-dev",
        json={"database_id": await _demo_database(client, auth), "sql": sql, **extra},
        headers=auth(role),
    )


async def test_analyst_is_refused_every_write_and_data_is_unchanged(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    before = (await _run(client, auth, Role.analyst, COUNT_SQL)).json()["rows"]
    statuses = {}
    for sql in WRITES:
        response = await _run(client, auth, Role.analyst, sql)
        statuses[sql] = response.status_code
        if response.status_code == 403:
            assert response.json()["required_role"] == "engineer"
    assert all(status == 403 for status in statuses.values()), statuses
    after = (await _run(client, auth, Role.analyst, COUNT_SQL)).json()["rows"]
    assert after == before
    assert before[0]["n"] == 8


async def test_engineer_may_write(client: httpx.AsyncClient, auth: AuthHeaders) -> None:
    for sql in (
        "create table if not exists sstools_scratch (a int)",
        "delete from sstools_scratch",
        "insert into sstools_scratch values (1), (2)",
    ):
        response = await _run(client, auth, Role.engineer, sql)
        assert response.status_code == 200, response.text
        assert response.json()["classification"]["kind"] == "write"
    rows = (
        await _run(client, auth, Role.analyst, "select sum(a) as s from sstools_scratch")
    ).json()
    assert rows["rows"] == [{"s": 3}]
    await _run(client, auth, Role.engineer, "drop table sstools_scratch")


async def test_row_limit_is_enforced(client: httpx.AsyncClient, auth: AuthHeaders) -> None:
    response = await _run(client, auth, Role.analyst, "select * from energy_consumption", limit=7)
    body = response.json()
    assert body["row_count"] == 7
    assert len(body["rows"]) == 7
    assert body["limited"]
    assert body["columns"][:2] == ["day", "region"]


@pytest.mark.parametrize(
    ("sql", "status"), [("selec * from", 422), ("select * from no_such_table", 422)]
)
async def test_bad_sql_is_422(
    client: httpx.AsyncClient, auth: AuthHeaders, sql: str, status: int
) -> None:
    response = await _run(client, auth, Role.analyst, sql)
    assert response.status_code == status
    assert response.json()["detail"]


async def test_format_in_the_database_dialect(client: httpx.AsyncClient, auth: AuthHeaders) -> None:
    response = await client.post(
        "/api/sql/format",
        json={
            "sql": "select region,sum(consumption_mwh) from energy_consumption group by 1",
            "env_id": "ss-dev",
            "database_id": await _demo_database(client, auth),
        },
        headers=auth(Role.analyst),
    )
    assert response.json()["dialect"] == "sqlite"
    assert response.json()["sql"].startswith("SELECT\n  region,")


async def test_unknown_database_is_404_naming_the_environment(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    response = await client.post(
        "/api/sql/execute?env_id=ss-dev",
        json={"database_id": 99999, "sql": "select 1"},
        headers=auth(Role.analyst),
    )
    assert response.status_code == 404
    assert "ss-dev" in response.json()["detail"]


async def test_analysts_everyday_queries_run_on_the_demo_database(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    """The function allow-list keeps what analysts write a read, and SQLite runs all of it."""
    for sql in DEMO_READS:
        response = await _run(client, auth, Role.analyst, sql, limit=5)
        assert response.status_code == 200, (sql, response.text)
        assert response.json()["classification"]["kind"] == "read"


async def test_writes_hidden_by_dialect_syntax_are_refused_and_data_is_unchanged(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    before = (await _run(client, auth, Role.analyst, COUNT_SQL)).json()["rows"]
    for sql in {sql for sql, _ in HIDDEN_WRITES}:
        response = await _run(client, auth, Role.analyst, sql)
        assert response.status_code in (403, 422), (sql, response.text)
    after = (await _run(client, auth, Role.analyst, COUNT_SQL)).json()["rows"]
    assert after == before


async def test_a_failed_engineer_write_is_audited(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    sql = "insert into sstools_no_such_table values (1)"
    response = await _run(client, auth, Role.engineer, sql)
    assert response.status_code == 422, response.text
    assert "sstools_no_such_table" in response.text
    services = client._transport.app.state.services  # type: ignore[attr-defined]
    async with services.sessions() as session:
        rows = (await session.execute(AuditEntry.__table__.select())).all()
    mine = [(row.outcome, row.username) for row in rows if row.detail.get("sql") == sql]
    assert mine == [("error", "engineer")]
