"""What a UIContext of version 2 adds to the page's object: the dashboard's native filters as
they stand, the chart looked at, and a SQL Lab tab — each bounded, each data the page sends.

Checked here for shape only; whether a filter's column is one of the dashboard's is asked of
Superset before the turn (``agent/routes/conversations.py``).
"""

from __future__ import annotations

import unicodedata
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sstools.agent import texts

MAX_FILTERS = 10
MAX_FILTER_VALUES = 50
MAX_VALUE_CHARS = 200
MAX_COLUMN_CHARS = 256
MAX_SQL_CHARS = 8000
# Line breaks, controls and invisible format characters: none belongs in a column name or value.
_UNPRINTABLE = frozenset({"Cc", "Cs", "Zl", "Zp", "Cf", "Co", "Cn"})

FilterValue = str | int | float | bool | None


class FilterOperator(StrEnum):
    """Superset's filter operators a native filter's state is said in."""

    IN = "IN"
    NOT_IN = "NOT IN"
    EQUALS = "=="
    NOT_EQUALS = "!="
    GREATER = ">"
    GREATER_OR_EQUAL = ">="
    LESS = "<"
    LESS_OR_EQUAL = "<="
    TEMPORAL_RANGE = "TEMPORAL_RANGE"


def _printable(text: str) -> str:
    if any(unicodedata.category(char) in _UNPRINTABLE for char in text):
        raise ValueError(texts.CONTEXT_CONTROL_CHARACTERS)
    return text


class ContextFilter(BaseModel):
    """One native filter as it stands: «country IN (Россия, Казахстан)»."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    column: str = Field(min_length=1, max_length=MAX_COLUMN_CHARS)
    op: FilterOperator
    values: tuple[FilterValue, ...] = Field(max_length=MAX_FILTER_VALUES)

    @field_validator("column")
    @classmethod
    def _column_printable(cls, value: str) -> str:
        return _printable(value)

    @field_validator("values")
    @classmethod
    def _values_bounded(cls, values: tuple[FilterValue, ...]) -> tuple[FilterValue, ...]:
        for value in values:
            if isinstance(value, str):
                if len(value) > MAX_VALUE_CHARS:
                    raise ValueError(texts.CONTEXT_VALUE_TOO_LONG.format(limit=MAX_VALUE_CHARS))
                _printable(value)
        return values


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
            unicodedata.category(char) in _UNPRINTABLE and char not in "\n\r\t" for char in value
        ):
            raise ValueError(texts.CONTEXT_INVISIBLE_CHARACTERS)
        return value

    @field_validator("schema_name")
    @classmethod
    def _schema_printable(cls, value: str | None) -> str | None:
        return None if value is None else _printable(value)
