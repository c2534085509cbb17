"""SQL classification and formatting with sqlglot: read or write is decided by parsing, not prefix.

Databases read the same text differently: MySQL's ``#`` comments and ``--`` that needs a space,
its executable ``/*! … */`` comments and backslash escapes, PostgreSQL's ``$$`` quotes and nested
comments, T-SQL's ``[ ]``. A write hidden from one reading must not pass as a read, so
:func:`classify` reads the SQL in several dialects and takes the stricter verdict: a write when
any reading writes (see ``_reading``), when the readings split it into different numbers of
statements, or when a dialect that cannot read the whole text reads a write before the point
where it stops (engines run a script statement by statement). The target's must parse.

SQL nested up to ``MAX_NESTING`` levels is read in a worker thread with a large stack (see
``_depth``); deeper SQL is refused with the limit named. :func:`classify_for_backend` also judges
SQL for engines sqlglot cannot read: Kusto KQL, which is not SQL, and SQL for an engine without a
sqlglot dialect (Firebird) that no known dialect parses, are writes whose reason says so.

This decides when to ask, not what may happen: the boundary is the database role Superset
connects with (read-only for analysts).
"""

from __future__ import annotations

from functools import lru_cache

from sstools.sql._depth import MAX_NESTING, read_deeply
from sstools.sql._dialects import (
    EVERY_DIALECT,
    NOT_SQL_BACKENDS,
    dialect_for,
    label,
    readers_for,
)
from sstools.sql._model import SqlClassification, SqlKind, SqlSyntaxError, SqlTooDeep
from sstools.sql._reading import Reading, parse, read, write_before_error
from sstools.texts import sql as texts

__all__ = [
    "MAX_NESTING",
    "SqlClassification",
    "SqlKind",
    "SqlSyntaxError",
    "SqlTooDeep",
    "classify",
    "classify_for_backend",
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
        SqlTooDeep: it is nested deeper than ``MAX_NESTING`` levels.
    """
    return read_deeply(lambda: _classify(sql, dialect)).model_copy()


def classify_for_backend(sql: str, backend: str | None) -> SqlClassification:
    """:func:`classify` for a database known by its Superset backend, whatever its language.

    A backend with a sqlglot dialect is read in it. Kusto KQL is a write: it is not SQL, so no
    reading can tell what it does. Any other backend is read in every dialect; SQL none of them
    parses is a write with that reason, not a parser's complaint about valid Firebird SQL.

    Raises:
        SqlSyntaxError: the database's dialect cannot parse the SQL, or it is empty.
        SqlTooDeep: it is nested deeper than ``MAX_NESTING`` levels.
    """
    name = (backend or "").lower()
    language = NOT_SQL_BACKENDS.get(name)
    if language and sql.strip():
        return SqlClassification(
            kind=SqlKind.write,
            reason=texts.NOT_SQL.format(language=language),
            statements=0,
        )
    dialect = dialect_for(name)
    if dialect is not None or not name:
        return classify(sql, dialect)
    try:
        return classify(sql, None)
    except SqlTooDeep:
        raise
    except SqlSyntaxError:
        if not sql.strip():
            raise
        return SqlClassification(
            kind=SqlKind.write,
            reason=texts.NO_DIALECT.format(name=name, count=len(EVERY_DIALECT)),
            statements=0,
        )


@lru_cache(maxsize=64)  # the agent judges the same call twice: guardrails, then executor
def _classify(sql: str, dialect: str | None) -> SqlClassification:
    if not sql.strip():
        raise SqlSyntaxError(texts.EMPTY)
    readings: list[Reading] = []
    first_error: SqlSyntaxError | None = None
    for reader in readers_for(dialect):
        try:
            readings.append(read(sql, reader))
        except SqlTooDeep:
            raise  # no dialect reads it deeper: the others would only spend the time again
        except SqlSyntaxError as exc:
            if reader == dialect:
                raise
            first_error = first_error or exc
            partial = write_before_error(sql, reader)
            if partial:  # a database of that dialect runs these before it stops at the error
                return SqlClassification(
                    kind=SqlKind.write,
                    reason=texts.WRITES_BEFORE_ERROR.format(partial=partial, reading=_as(reader)),
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
        kind=SqlKind.read, reason=texts.ONLY_QUERIES, statements=readings[0].statements
    )


def _write_reason(readings: list[Reading]) -> str | None:
    """Why the readings so far make a write: the first reading's own reason, a split, another's."""
    first, latest = readings[0], readings[-1]
    if first.write_reason:
        return first.write_reason
    if latest.statements != first.statements:
        counts = ", ".join(f"{label(r.dialect)}: {r.statements}" for r in readings)
        return texts.SPLIT_DIFFERENTLY.format(counts=counts)
    if latest.write_reason:
        return texts.READ_AS.format(reason=latest.write_reason, reading=_as(latest.dialect))
    return None


def _as(dialect: str) -> str:
    return texts.AS_READ_BY.format(dialect=label(dialect))


def format_sql(sql: str, dialect: str | None = None) -> str:
    if not sql.strip():
        raise SqlSyntaxError(texts.EMPTY)
    return read_deeply(lambda: _format(sql, dialect))


def _format(sql: str, dialect: str | None) -> str:
    _, statements = parse(sql, dialect or "")
    return ";\n\n".join(s.sql(dialect=dialect, pretty=True) for s in statements)
