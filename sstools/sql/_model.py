"""The verdict on a piece of SQL, and the error for SQL that does not parse."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel

from sstools.errors import SstoolsError


class SqlKind(StrEnum):
    read = "read"
    write = "write"


class SqlClassification(BaseModel):
    kind: SqlKind
    reason: str
    statements: int


class SqlSyntaxError(SstoolsError, ValueError):
    """The SQL does not parse; the message is the parser's, with the line and column."""


class SqlTooDeep(SqlSyntaxError):
    """The SQL is nested deeper than sstools reads; the message names the limit."""
