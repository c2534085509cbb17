"""The SQL verdicts against a corpus: Superset's own cases, attacks, and analysts' reads.

The corpus is data (tests/sql/data/sql_corpus.py). The API judges SQL for a database by its
Superset backend (``classify_for_backend``), the agent without knowing it (``classify(sql,
None)``); neither may read a write, and every listed legitimate read is a read for both, so an
analyst can run it and the agent shows no card for it.
"""

from __future__ import annotations

import pytest

from sstools.sql import (
    MAX_NESTING,
    SqlKind,
    SqlSyntaxError,
    SqlTooDeep,
    classify,
    classify_for_backend,
    format_sql,
)
from sstools.sql._statements import explained_statement
from tests.sql.data.sql_corpus import (
    ATTACKS,
    LEGITIMATE_READS,
    SESSION_STATEMENTS,
    SUPERSET_CASES,
)

SUPERSET_WRITES = [(engine, sql) for engine, sql, writes in SUPERSET_CASES if writes]


def api_kind(sql: str, backend: str) -> SqlKind | None:
    """What ``/api/sql/execute`` decides for a database of this backend; None: it answers 422."""
    try:
        return classify_for_backend(sql, backend).kind
    except SqlSyntaxError:
        return None


def agent_kind(sql: str) -> SqlKind | None:
    try:
        return classify(sql, None).kind
    except SqlSyntaxError:
        return None  # the agent shows a card for SQL it cannot read


def test_the_corpus_covers_superset_and_its_engines() -> None:
    assert len(SUPERSET_CASES) >= 450
    assert len({engine for engine, _, _ in SUPERSET_CASES}) >= 50
    assert len(SUPERSET_WRITES) >= 250


@pytest.mark.parametrize(("engine", "sql"), SUPERSET_WRITES + ATTACKS)
def test_no_write_is_read_as_a_read(engine: str, sql: str) -> None:
    assert api_kind(sql, engine) is not SqlKind.read, (engine, sql)
    assert agent_kind(sql) is not SqlKind.read, sql


@pytest.mark.parametrize(("backend", "sql"), LEGITIMATE_READS)
def test_every_listed_legitimate_read_is_a_read(backend: str, sql: str) -> None:
    verdict = classify_for_backend(sql, backend)
    assert verdict.kind is SqlKind.read, verdict.reason
    assert classify(sql, None).kind is SqlKind.read, classify(sql, None).reason


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1 DELETE FROM t",
        "SELECT TOP 1 1 DELETE FROM t WHERE 1=1",
        "SELECT 1 COMMIT",
        "SELECT 1 RECONFIGURE",
        "SELECT 1 SHUTDOWN",
    ],
)
def test_a_statement_keyword_as_bare_alias_is_a_write_that_says_why(sql: str) -> None:
    """SQL Server runs the second statement; every sqlglot dialect reads one aliased column."""
    for verdict in (classify_for_backend(sql, "mssql"), classify(sql, None)):
        assert verdict.kind is SqlKind.write
        assert "где между операторами не нужна «;»" in verdict.reason


def test_a_quoted_or_ordinary_alias_stays_a_read() -> None:
    assert classify('SELECT 1 "delete", 2 [commit], price open, price close', "tsql").kind is (
        SqlKind.read
    )


@pytest.mark.parametrize(("backend", "sql", "why"), SESSION_STATEMENTS)
def test_set_and_use_stay_writes_and_say_why(backend: str, sql: str, why: str) -> None:
    verdict = classify_for_backend(sql, backend)
    assert verdict.kind is SqlKind.write
    assert why in verdict.reason


def test_explain_is_a_read_only_of_a_read() -> None:
    assert classify("EXPLAIN SELECT * FROM t", "postgres").kind is SqlKind.read
    analyzed = classify(
        "EXPLAIN ANALYZE WITH d AS (DELETE FROM t RETURNING 1) SELECT 1", "postgres"
    )
    assert analyzed.kind is SqlKind.write
    assert "EXPLAIN оператора, который пишет" in analyzed.reason
    assert (
        "EXPLAIN ANALYZE его выполняет"
        in classify("EXPLAIN ANALYZE DELETE FROM t", "postgres").reason
    )
    unreadable = classify("EXPLAIN SELECT FROM FROM", "postgres")
    assert unreadable.kind is SqlKind.write
    assert "EXPLAIN запроса, который sstools не может прочесть" in unreadable.reason
    assert explained_statement("'never closed", "postgres") is None


def test_kql_is_refused_as_not_sql_not_with_a_parser_message() -> None:
    verdict = classify_for_backend("StormEvents | take 10", "kustokql")
    assert verdict.kind is SqlKind.write
    assert "Kusto KQL — не SQL" in verdict.reason


def test_sql_for_an_engine_without_a_dialect_is_refused_saying_so() -> None:
    verdict = classify_for_backend("SELECT FIRST 10 SKIP 5 * FROM regions", "firebird")
    assert verdict.kind is SqlKind.write
    assert "для firebird в sqlglot нет диалекта" in verdict.reason
    assert classify_for_backend("SELECT * FROM regions", "firebird").kind is SqlKind.read
    with pytest.raises(SqlSyntaxError, match="пустой"):
        classify_for_backend("  ", "firebird")


def test_sql_nested_250_levels_reads() -> None:
    sql = "select " + "(" * 250 + "1" + ")" * 250 + " from regions"
    assert classify(sql, "postgres").kind is SqlKind.read
    assert classify(sql, None).kind is SqlKind.read
    assert format_sql(sql, "postgres").count("(") == 250
    assert MAX_NESTING >= 1000


@pytest.mark.parametrize(
    "sql",
    [
        "select " + "(" * 10_000 + "1" + ")" * 10_000,
        "select " + "not " * 10_000 + "1",
        "select " + "case when 1 then " * 3_000 + "1" + " end" * 3_000,
    ],
)
def test_sql_nested_10000_levels_is_refused_with_the_limit_never_a_crash(sql: str) -> None:
    for backend in ("postgresql", "firebird"):
        with pytest.raises(SqlTooDeep, match="до 1 000 уровней"):
            classify_for_backend(sql, backend)
    with pytest.raises(SqlTooDeep):
        classify(sql, None)
