"""SQL classification and formatting with sqlglot: read or write is decided by parsing, not prefix.

Databases read the same text differently: MySQL's ``#`` comments and ``--`` that needs a space,
its executable ``/*! … */`` comments and backslash escapes, PostgreSQL's ``$$`` quotes and nested
comments, T-SQL's ``[ ]``. A write hidden from one reading must not pass as a read, so
:func:`classify` reads the SQL in several dialects and takes the stricter verdict: a write when
any reading writes (see ``_reading``), when the readings split it into different numbers of
statements, or when a dialect that cannot read the whole text reads a write before the point
where it stops (engines run a script statement by statement). The target's must parse.

This decides when to ask, not what may happen: the boundary is the database role Superset
connects with (read-only for analysts).
"""

from __future__ import annotations

from functools import lru_cache

from sstools.domain.sql._dialects import dialect_for, label, readers_for
from sstools.domain.sql._model import SqlClassification, SqlKind, SqlSyntaxError
from sstools.domain.sql._reading import Reading, parse, read, write_before_error

__all__ = [
    "SqlClassification",
    "SqlKind",
    "SqlSyntaxError",
    "classify",
    "dialect_for",
    "format_sql",
]


def classify(sql: str, dialect: str | None = None) -> SqlClassification:
    """Read or write, with the reason, the stricter wherever dialects read the SQL differently.

    Args:
        sql: One or more statements.
        dialect: The database's sqlglot dialect. The SQL must parse in it and is compared with
            one dialect per way of writing comments and quotes. None (the database is not
            known): compared across every dialect sstools knows, so the verdict is never laxer
            than the one for any of them.

    Raises:
        SqlSyntaxError: the target dialect cannot parse it; with no target, none can.
    """
    return _classify(sql, dialect).model_copy()


@lru_cache(maxsize=64)  # the agent judges the same call twice: guardrails, then executor
def _classify(sql: str, dialect: str | None) -> SqlClassification:
    if not sql.strip():
        raise SqlSyntaxError("SQL is empty")
    readings: list[Reading] = []
    first_error: SqlSyntaxError | None = None
    for reader in readers_for(dialect):
        try:
            readings.append(read(sql, reader))
        except SqlSyntaxError as exc:
            if reader == dialect:
                raise
            first_error = first_error or exc
            partial = write_before_error(sql, reader)
            if partial:  # a database of that dialect runs these before it stops at the error
                return SqlClassification(
                    kind=SqlKind.write,
                    reason=f"{partial}, before the SQL stops parsing (as {label(reader)} reads it)",
                    statements=readings[0].statements if readings else 0,
                )
            continue
        reason = _write_reason(readings)
        if reason:  # the stricter verdict is reached: the remaining readings cannot undo it
            return SqlClassification(
                kind=SqlKind.write, reason=reason, statements=readings[0].statements
            )
    if not readings:
        assert first_error is not None
        raise first_error
    return SqlClassification(
        kind=SqlKind.read, reason="only queries", statements=readings[0].statements
    )


def _write_reason(readings: list[Reading]) -> str | None:
    """Why the readings so far make a write: the first reading's own reason, a split, another's."""
    first, latest = readings[0], readings[-1]
    if first.write_reason:
        return first.write_reason
    if latest.statements != first.statements:
        counts = ", ".join(f"{label(r.dialect)}: {r.statements}" for r in readings)
        return f"dialects split the SQL into different numbers of statements ({counts})"
    if latest.write_reason:
        return f"{latest.write_reason} (as {label(latest.dialect)} reads it)"
    return None


def format_sql(sql: str, dialect: str | None = None) -> str:
    if not sql.strip():
        raise SqlSyntaxError("SQL is empty")
    _, statements = parse(sql, dialect or "")
    return ";\n\n".join(s.sql(dialect=dialect, pretty=True) for s in statements)
