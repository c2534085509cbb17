"""The SQL dialects sstools knows, and which of them read a statement before it is judged."""

from __future__ import annotations

# Superset's ``backend`` names → sqlglot dialects.
BACKEND_DIALECTS = {
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
    # the names Superset's engine specs report for the same databases
    "awsathena": "athena",
    "teradatasql": "teradata",
    "pydoris": "doris",
}

# Superset engines whose query language is not SQL: nothing sqlglot reads can judge it.
NOT_SQL_BACKENDS = {"kustokql": "Kusto KQL"}

GENERIC = ""  # sqlglot's dialect-less reading: ANSI comments and quotes
EVERY_DIALECT: tuple[str, ...] = (GENERIC, *sorted(set(BACKEND_DIALECTS.values())))

# One dialect per way of writing comments and quotes, so a construct that some database reads
# otherwise shows up as a disagreement. Every other sqlglot dialect tokenizes like one of these.
#   generic   -- comments, nested /* */, 'strings' with '', "identifiers"
#   sqlite    [identifiers] and `identifiers`, /* */ does not nest
#   postgres  $tag$ dollar quotes $tag$, E'\'' escapes, # is an operator, nested /* */
#   mysql     # comments, "-- " needs a space, \' escapes, "strings", /*! executable */
#   tsql      [identifiers]]], N'strings', nested /* */
LEXICAL_FAMILIES: tuple[str, ...] = (GENERIC, "sqlite", "postgres", "mysql", "tsql")


def dialect_for(backend: str | None) -> str | None:
    return BACKEND_DIALECTS.get((backend or "").lower())


def readers_for(dialect: str | None) -> tuple[str, ...]:
    """The target first, then one dialect per lexical family; with no target, every dialect.

    A known target's readers are a subset of every dialect, so a statement that is a write for
    some database is a write for the caller that does not know which database it is.
    """
    if dialect is None:
        return EVERY_DIALECT
    if dialect not in EVERY_DIALECT:
        raise ValueError(f"unknown SQL dialect {dialect!r}")
    return (dialect, *(family for family in LEXICAL_FAMILIES if family != dialect))


def label(dialect: str) -> str:
    return dialect or "generic"
