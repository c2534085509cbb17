"""Every entry of the per-database read-only lists is a read; every named effect is a write."""

from __future__ import annotations

import pytest
from sqlglot import exp

from sstools.sql import SqlKind, classify
from sstools.sql._builtins import EFFECT_NAMES, PURE_BUILTINS
from sstools.sql._functions import function_write_reason, is_clickhouse_combined_aggregate

DOCUMENTED_READS = sorted(
    (dialect, name) for dialect, names in PURE_BUILTINS.items() for name in names
)


@pytest.mark.parametrize(("dialect", "name"), DOCUMENTED_READS)
def test_each_documented_read_only_builtin_keeps_a_query_a_read(dialect: str, name: str) -> None:
    call = exp.Anonymous(this=name, expressions=[])  # LAST_INSERT_ID() reads; (5) would set
    assert function_write_reason(call) is None, (dialect, name)
    assert name not in EFFECT_NAMES


@pytest.mark.parametrize("name", sorted(EFFECT_NAMES))
def test_each_named_effect_makes_a_write(name: str) -> None:
    call = exp.Anonymous(this=name, expressions=[exp.column("x")])
    assert function_write_reason(call) == f"функция {name}() действует за пределами запроса"


@pytest.mark.parametrize(
    ("sql", "dialect"),
    [
        ("select nextval('s')", "postgres"),
        ("select setval('s', 1)", "postgres"),
        ("select set_config('role', 'admin', false)", "postgres"),
        ("select pg_terminate_backend(1)", "postgres"),
        ("select lo_import('/etc/passwd')", "postgres"),
        ("select lo_export(1, '/tmp/x')", "postgres"),
        ("select pg_read_file('/etc/passwd')", "postgres"),
        ("select * from dblink('x', 'delete from t') as t(a int)", "postgres"),
        ("select * from url('http://x', CSV, 'a String')", "clickhouse"),
        ("select * from file('/etc/passwd', 'LineAsString')", "clickhouse"),
        ("select * from remote('h', db.t)", "clickhouse"),
        ("select last_insert_id(5)", "mysql"),
        ("select * from openrowset('SQLNCLI', 'Server=x;', 'select 1')", "tsql"),
    ],
)
def test_side_effecting_builtins_are_writes_in_their_database(sql: str, dialect: str) -> None:
    verdict = classify(sql, dialect)
    assert verdict.kind is SqlKind.write
    assert classify(sql, None).kind is SqlKind.write


def test_clickhouse_combinators_need_a_known_aggregate() -> None:
    assert is_clickhouse_combined_aggregate("uniqExactIf")
    assert is_clickhouse_combined_aggregate("sumArrayIfOrNull")
    assert not is_clickhouse_combined_aggregate("uniqExact")  # no combinator: the plain list
    assert not is_clickhouse_combined_aggregate("myUdfIf")
    assert not is_clickhouse_combined_aggregate("If")


def test_an_ai_call_written_by_its_own_name_stays_a_write() -> None:
    """BigQuery's parser takes PostgreSQL's ``similarity`` for AI.SIMILARITY: only that alias."""
    assert classify("select similarity(a, 'x') from t", None).kind is SqlKind.read
    assert classify("select ai_similarity(a, 'x') from t", None).kind is SqlKind.write
    assert classify("select AI.SIMILARITY(a, 'x') from t", "bigquery").kind is SqlKind.write
