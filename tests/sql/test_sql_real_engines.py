"""The real engines decide: when SQLite or PostgreSQL actually changed something, it was a write.

sqlglot models each dialect's tokenizer; these tests check the verdicts against the databases
themselves, on the corpus of dialect-divergent constructs: whenever the engine wrote, neither the
agent nor ``/api/sql/execute`` for that database may have called the SQL a read.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sstools.agent.tools.spec import ToolKind
from sstools.sql import SqlKind
from tests.sql.data.sql_verdicts import (
    FRAGMENTS,
    HEADS,
    PAYLOADS,
    TEMPLATES,
    agent_kind,
    database_kind,
)

REGIONS = "create table regions (region text, federal_district text, population_thousands integer)"
SEED_ROW = "insert into regions values ('Москва', 'ЦФО', 13150)"
ADVISORY_LOCKS = (
    "select count(*) from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()"
)
CORPUS = [template.format(h=HEADS[1], p=payload) for template in TEMPLATES for payload in PAYLOADS]


def sqlite_wrote(sql: str) -> bool:
    """Runs the text as SQLite itself splits it; True when a row or the schema changed."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(REGIONS)
        conn.execute(SEED_ROW)
        conn.commit()
        schema_version = conn.execute("pragma schema_version").fetchone()[0]
        changes = conn.total_changes
        with contextlib.suppress(sqlite3.Error):  # statements before the failing one have run
            conn.executescript(sql)
        changed_schema = conn.execute("pragma schema_version").fetchone()[0] != schema_version
        return changed_schema or conn.total_changes != changes
    finally:
        conn.close()


def _assert_verdicts_hold(sql: str, wrote: bool, dialect: str) -> None:
    if not wrote:
        return
    assert agent_kind(sql) is ToolKind.write, f"{dialect} wrote, the agent read: {sql!r}"
    assert database_kind(sql, dialect) in (SqlKind.write, None), f"{dialect} wrote: {sql!r}"


@pytest.mark.parametrize("sql", CORPUS)
def test_what_sqlite_writes_is_never_a_read(sql: str) -> None:
    _assert_verdicts_hold(sql, sqlite_wrote(sql), "sqlite")


# 300: as the dialect soup; each example also runs on a real SQLite, still well under a second.
@settings(max_examples=300, derandomize=True)
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=10).map("".join))
def test_what_sqlite_writes_in_fragment_soup_is_never_a_read(tail: str) -> None:
    sql = "select 1 " + tail
    _assert_verdicts_hold(sql, sqlite_wrote(sql), "sqlite")


def test_the_corpus_makes_sqlite_write_sometimes() -> None:
    """Guards the test above from passing vacuously."""
    assert sum(sqlite_wrote(sql) for sql in CORPUS) >= len(CORPUS) // 4


@pytest.fixture
def postgres(pg_url: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """A connection to a fresh database (``pg_url``) holding the seeded ``regions`` table."""
    with psycopg.connect(pg_url) as conn:
        conn.execute(REGIONS)
        conn.execute(SEED_ROW)
        conn.commit()
        yield conn
        conn.rollback()


def postgres_wrote(conn: psycopg.Connection[tuple[object, ...]], sql: str) -> bool:
    """Runs the text in a transaction that is rolled back; True when PostgreSQL wrote or locked.

    Any write (rows, schema, row locks) assigns the transaction an id; advisory locks do not.
    """
    try:
        conn.execute(sql.encode())  # bytes: sent as it is, in the simple query protocol
        wrote = conn.execute("select txid_current_if_assigned() is not null").fetchone()
        locks = conn.execute(ADVISORY_LOCKS).fetchone()
        return bool(wrote and wrote[0]) or bool(locks and locks[0])
    except psycopg.Error:
        return False  # the whole text ran in one transaction, which the error rolled back
    finally:
        conn.rollback()
        conn.execute("select pg_advisory_unlock_all()")
        conn.commit()


@pytest.mark.postgres
def test_what_postgres_writes_is_never_a_read(
    postgres: psycopg.Connection[tuple[object, ...]],
) -> None:
    wrote = [sql for sql in CORPUS if postgres_wrote(postgres, sql)]
    assert len(wrote) >= len(CORPUS) // 4  # the corpus does make PostgreSQL write
    for sql in wrote:
        _assert_verdicts_hold(sql, True, "postgres")
