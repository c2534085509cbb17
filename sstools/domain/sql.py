"""SQL classification and formatting with sqlglot: read or write is decided by parsing, not prefix.

A statement is a *read* only when sqlglot parses it to a query (SELECT, set operations, VALUES,
DESCRIBE, SHOW) and nothing inside it writes: no DML/DDL node anywhere (CTEs included), no
``SELECT … INTO``, no ``FOR UPDATE`` lock, no function known to change state. Everything else,
including what sqlglot only recognises as an opaque command, is a *write*: when in doubt, refuse.
"""

from __future__ import annotations

from enum import StrEnum

import sqlglot
from pydantic import BaseModel
from sqlglot import exp
from sqlglot.errors import ParseError

_READ_ROOTS: tuple[type[exp.Expression], ...] = (
    exp.Select,
    exp.SetOperation,
    exp.Values,
    exp.Describe,
    exp.Show,
    exp.Subquery,
)
_WRITE_NODES: tuple[type[exp.Expression], ...] = (
    exp.Insert,
    exp.Update,
    exp.Delete,
    exp.Merge,
    exp.Create,
    exp.Drop,
    exp.Alter,
    exp.TruncateTable,
    exp.Command,
    exp.Copy,
    exp.Grant,
    exp.Revoke,
    exp.Set,
    exp.Pragma,
    exp.LoadData,
    exp.Use,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.Analyze,
    exp.Attach,
    exp.Detach,
    exp.Cache,
    exp.Uncache,
    exp.Refresh,
)
# Functions that change state although they sit inside a SELECT.
_WRITING_FUNCTIONS = frozenset(
    {
        "nextval",
        "setval",
        "set_config",
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_reload_conf",
        "pg_rotate_logfile",
        "lo_import",
        "lo_export",
        "lo_unlink",
        "dblink_exec",
        "pg_advisory_lock",
        "pg_advisory_xact_lock",
        "pg_promote",
        "pg_switch_wal",
        "load_extension",
        "writefile",
        "edit",
    }
)

# Superset's ``backend`` names → sqlglot dialects.
_DIALECTS = {
    "sqlite": "sqlite",
    "postgresql": "postgres",
    "postgres": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "mssql": "tsql",
    "bigquery": "bigquery",
    "snowflake": "snowflake",
    "trino": "trino",
    "presto": "presto",
    "clickhouse": "clickhouse",
    "clickhousedb": "clickhouse",
    "oracle": "oracle",
    "redshift": "redshift",
    "hive": "hive",
    "spark": "spark",
    "databricks": "databricks",
    "duckdb": "duckdb",
    "athena": "athena",
    "doris": "doris",
    "starrocks": "starrocks",
    "teradata": "teradata",
}


class SqlKind(StrEnum):
    read = "read"
    write = "write"


class SqlClassification(BaseModel):
    kind: SqlKind
    reason: str
    statements: int


class SqlSyntaxError(ValueError):
    """The SQL does not parse; the message is the parser's."""


def dialect_for(backend: str | None) -> str | None:
    return _DIALECTS.get((backend or "").lower())


def _parse(sql: str, dialect: str | None) -> list[exp.Expr]:
    if not sql.strip():
        raise SqlSyntaxError("SQL is empty")
    try:
        statements = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
    except ParseError as exc:
        raise SqlSyntaxError(str(exc).splitlines()[0]) from exc
    if not statements:
        raise SqlSyntaxError("SQL has no statement")
    return statements


def _write_reason(statement: exp.Expr) -> str | None:
    if isinstance(statement, exp.Command):
        return f"{statement.name.upper()} is not a statement sstools recognises as read-only"
    if not isinstance(statement, _READ_ROOTS):
        return f"{statement.key.upper()} statement"
    for node in statement.walk():
        if isinstance(node, _WRITE_NODES):
            return f"{node.key.upper()} inside the query"
        if isinstance(node, exp.Select) and node.args.get("into") is not None:
            return "SELECT … INTO creates a table"
        if isinstance(node, exp.Lock):
            return "FOR UPDATE/SHARE takes row locks"
        if isinstance(node, exp.Func):
            name = (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()
            if name in _WRITING_FUNCTIONS:
                return f"function {name}() changes state"
    return None


def classify(sql: str, dialect: str | None = None) -> SqlClassification:
    """Read or write, with the reason. Raises :class:`SqlSyntaxError` when it does not parse."""
    statements = _parse(sql, dialect)
    for statement in statements:
        reason = _write_reason(statement)
        if reason:
            return SqlClassification(kind=SqlKind.write, reason=reason, statements=len(statements))
    return SqlClassification(kind=SqlKind.read, reason="only queries", statements=len(statements))


def format_sql(sql: str, dialect: str | None = None) -> str:
    statements = _parse(sql, dialect)
    return ";\n\n".join(s.sql(dialect=dialect, pretty=True) for s in statements)
