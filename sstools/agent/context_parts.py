"""What a UIContext of version 2 adds to the page's object: the dashboard's native filters as
they stand (``http/dashboard_filters.py``), the chart looked at, and a SQL Lab tab — each
bounded, each data the page sends.

Checked here for shape only; whether a filter's column is one of the dashboard's is asked of
Superset before the turn (``agent/routes/conversations.py``).
"""

from __future__ import annotations

import unicodedata

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sstools.agent import texts
from sstools.http.dashboard_filters import MAX_COLUMN_CHARS, UNPRINTABLE, printable

MAX_SQL_CHARS = 8000


class SqlLabTab(BaseModel):
    """A SQL Lab tab: its SQL (as text the person wrote, never run from here) and its database."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    sql: str = Field(min_length=1, max_length=MAX_SQL_CHARS)
    # [0-9], not \d: \d also matches non-ASCII digits such as «٣».
    database_id: str = Field(alias="databaseId", pattern=r"^[0-9]{1,18}$")
    schema_name: str | None = Field(default=None, alias="schema", max_length=MAX_COLUMN_CHARS)

    @field_validator("sql")
    @classmethod
    def _no_invisible_characters(cls, value: str) -> str:
        # Line breaks and tabs belong to SQL; other controls and invisible marks do not.
        if any(
            unicodedata.category(char) in UNPRINTABLE and char not in "\n\r\t" for char in value
        ):
            raise ValueError(texts.CONTEXT_INVISIBLE_CHARACTERS)
        return value

    @field_validator("schema_name")
    @classmethod
    def _schema_printable(cls, value: str | None) -> str | None:
        return None if value is None else printable(value)
