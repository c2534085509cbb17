"""SQL is classified by parsing: writes hidden in CTEs, after comments or behind `;` are writes."""

from __future__ import annotations

import pytest

from sstools.sql import SqlKind, SqlSyntaxError, classify, dialect_for, format_sql
from tests.sql.data.sql_verdicts import WRITES

READS = [
    "select 1",
    "SELECT * FROM energy_consumption LIMIT 10",
    "select region, sum(consumption_mwh) from energy_consumption group by region",
    "with t as (select * from regions) select * from t",
    "with recursive n(x) as (select 1 union all select x + 1 from n where x < 5) select x from n",
    "select a from t union select b from u",
    "select a from t intersect select a from u",
    "select a from t except select a from u",
    "-- delete from t\nselect 1",
    "/* drop table t; */ select 1",
    "select 'delete from t; drop table x' as s",
    "select * from (select * from t) sub",
    "values (1), (2)",
    "select count(*) from t where name like '%update%'",
    "select 1; select 2",
]


DIALECTS = [None, "sqlite", "postgres"]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("sql", READS)
def test_reads_are_reads(sql: str, dialect: str | None) -> None:
    assert classify(sql, dialect).kind is SqlKind.read, sql


@pytest.mark.parametrize("sql", WRITES)
def test_writes_are_writes_in_the_sandbox_dialect(sql: str) -> None:
    result = classify(sql, "sqlite")
    assert result.kind is SqlKind.write, sql
    assert result.reason


@pytest.mark.parametrize("dialect", [None, "postgres"])
@pytest.mark.parametrize("sql", WRITES)
def test_writes_are_never_reads_in_other_dialects(sql: str, dialect: str | None) -> None:
    """A dialect that cannot parse a statement refuses it as unparseable: never a read."""
    try:
        result = classify(sql, dialect)
    except SqlSyntaxError:
        return
    assert result.kind is SqlKind.write, sql


def test_corpus_is_large_enough() -> None:
    """The corpus is big and varied: its writes reach many distinct reasons of the classifier."""
    assert len(READS) + len(WRITES) >= 30
    reasons = {classify(sql, "sqlite").reason for sql in WRITES}
    assert len(reasons) >= 15, sorted(reasons)
    assert {classify(sql, "sqlite").reason for sql in READS} == {"только запросы"}


def test_dialect_specific_write_is_caught() -> None:
    sql = "with d as (delete from t returning *) select * from d"
    assert classify(sql, dialect_for("postgresql")).kind is SqlKind.write


@pytest.mark.parametrize("dialect", [None, "sqlite", "postgres"])
@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        # sqlglot's own description first (English), then where it stopped, in Russian.
        ("selec 1 from", "Invalid expression / Unexpected token. Строка 1, столбец 7, у '1'"),
        ("select (1", "Expecting ). Строка 1, столбец 9, у '1'"),
        ("delete from", "Expected table name but got конец SQL. Строка 1, столбец 11"),
        ("select 'abc", "«'» в строке 1, столбец 8 открыто и нигде не закрыто"),
        ("select 1\n/* never closed", "около 'select 1\\n/* never close': не остались ли"),
        ("   ", "SQL пустой"),
    ],
)
def test_unparseable_sql_raises_with_the_parser_message(
    sql: str, expected: str, dialect: str | None
) -> None:
    """The message names what the parser stopped at and where, so a person can fix the SQL."""
    with pytest.raises(SqlSyntaxError) as caught:
        classify(sql, dialect)
    assert expected in str(caught.value)


def test_format_uses_the_dialect() -> None:
    assert "TOP 5" in format_sql("select top 5 a from t", "tsql")
    assert "LIMIT 5" in format_sql("select a from t limit 5", "sqlite")
    assert format_sql("select a,b from t where x=1") == "SELECT\n  a,\n  b\nFROM t\nWHERE\n  x = 1"


def test_unknown_backend_has_no_dialect() -> None:
    assert dialect_for("sqlite") == "sqlite"
    assert dialect_for("postgresql") == "postgres"
    assert dialect_for("exotic") is None
