"""A dashboard's native filter as it stands — «region IN (Москва, Казань)» — in the one shape the
agent's UIContext carries it and the domain API applies it to chart data.
"""

from __future__ import annotations

import unicodedata
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sstools.texts import http as texts

MAX_FILTERS = 10
MAX_FILTER_VALUES = 50
MAX_VALUE_CHARS = 200
MAX_COLUMN_CHARS = 256
# Line breaks, controls and invisible format characters: none belongs in a column name or value.
UNPRINTABLE = frozenset({"Cc", "Cs", "Zl", "Zp", "Cf", "Co", "Cn"})

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


def printable(text: str) -> str:
    """``text`` unchanged; ValueError (in words) when it holds a control or invisible character."""
    if any(unicodedata.category(char) in UNPRINTABLE for char in text):
        raise ValueError(texts.FILTER_CONTROL_CHARACTERS)
    return text


class DashboardFilter(BaseModel):
    """One native filter as it stands: a column, an operator and the values it keeps."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    column: str = Field(min_length=1, max_length=MAX_COLUMN_CHARS)
    op: FilterOperator
    values: tuple[FilterValue, ...] = Field(max_length=MAX_FILTER_VALUES)

    @field_validator("column")
    @classmethod
    def _column_printable(cls, value: str) -> str:
        return printable(value)

    @field_validator("values")
    @classmethod
    def _values_bounded(cls, values: tuple[FilterValue, ...]) -> tuple[FilterValue, ...]:
        for value in values:
            if isinstance(value, str):
                if len(value) > MAX_VALUE_CHARS:
                    raise ValueError(texts.FILTER_VALUE_TOO_LONG.format(limit=MAX_VALUE_CHARS))
                printable(value)
        return values

    def superset_filter(self) -> dict[str, object]:
        """As a query of Superset's chart data API takes it (``{col, op, val}``)."""
        if self.op is FilterOperator.TEMPORAL_RANGE:
            return {"col": self.column, "op": self.op.value, "val": str(self.values[0] or "")}
        many = self.op in (FilterOperator.IN, FilterOperator.NOT_IN)
        value = list(self.values) if many else (self.values[0] if self.values else None)
        return {"col": self.column, "op": self.op.value, "val": value}
