"""UIContext: what the person was looking at, validated, and rendered into the system prompt.

The block is data from the UI, never instructions: it sits between fixed markers, as JSON in
which ``<`` and ``>`` are escaped, so no value (``objectName`` is free text) can close it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Literal

from langchain_core.messages import BaseMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from sstools.agent import texts
from sstools.agent.context_parts import SqlLabTab
from sstools.errors import SstoolsError
from sstools.http.dashboard_filters import MAX_FILTERS, DashboardFilter

MAX_CONTEXT_BYTES = 4096
MAX_CONTEXT_V2_BYTES = 16384  # room for a SQL Lab tab's SQL and the filters' values
MAX_NAME_CHARS = 256
# What version 2 adds (context_parts.py); a version-1 context never carries them.
_VERSION_2_FIELDS = frozenset({"filters", "chart_id", "sql_lab"})
BLOCK_START = "<<<UI_CONTEXT"
BLOCK_END = "UI_CONTEXT>>>"
_HANDED = "ui_context"  # the system message's additional_kwargs key the planner reads
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Line breaks and controls (C0, C1, U+2028/9) could start a fake line in the prompt; Cs cannot
# even be encoded.
_BREAKING = frozenset({"Cc", "Cs", "Zl", "Zp"})
# Format characters: bidi controls (U+202A-E, U+2066-9, U+200E/F, U+061C), zero-width ones
# (U+200B-D, U+2060, U+FEFF) and the invisible tags U+E0000-7F that smuggle text past a reader.
_FORMAT = "Cf"
_UNPRINTABLE = _BREAKING | {_FORMAT, "Co", "Cn"}


def _categories(text: str) -> set[str]:
    return {unicodedata.category(char) for char in text}


class ObjectType(StrEnum):
    dashboard = "dashboard"
    dataset = "dataset"
    migration = "migration"


class UIContext(BaseModel):
    """Assembled by the /agent page from its URL; field names are the page's (camelCase)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    context_version: Literal[1, 2] = Field(alias="contextVersion")
    object_type: ObjectType | None = Field(default=None, alias="objectType")
    # [0-9], not \d: \d also matches non-ASCII digits such as «٣».
    object_id: str | None = Field(default=None, alias="objectId", pattern=r"^[0-9]{1,18}$")
    object_name: str | None = Field(default=None, alias="objectName", max_length=MAX_NAME_CHARS)
    env_id: str | None = Field(default=None, alias="envId", max_length=64)
    route: str = Field(default="/", max_length=512)
    # Version 2: the dashboard's filters as they stand, the chart looked at, a SQL Lab tab.
    filters: tuple[DashboardFilter, ...] = Field(default=(), max_length=MAX_FILTERS)
    chart_id: str | None = Field(default=None, alias="chartId", pattern=r"^[0-9]{1,18}$")
    sql_lab: SqlLabTab | None = Field(default=None, alias="sqlLab")

    @field_validator("context_version", mode="before")
    @classmethod
    def _an_integer(cls, value: object) -> object:
        # The docs say 1: True (== 1 in Python), 1.0 and "1" are not versions.
        if type(value) is not int:
            raise ValueError(texts.CONTEXT_VERSION_WRONG)
        return value

    @field_validator("filters", "chart_id", "sql_lab")
    @classmethod
    def _of_version_2(cls, value: object, info: ValidationInfo) -> object:
        if value and info.data.get("context_version") == 1:
            raise ValueError(texts.CONTEXT_ONLY_IN_VERSION_2)
        return value

    @field_validator("filters")
    @classmethod
    def _a_dashboards(
        cls, value: tuple[DashboardFilter, ...], info: ValidationInfo
    ) -> tuple[DashboardFilter, ...]:
        if value and info.data.get("object_type") is not ObjectType.dashboard:
            raise ValueError(texts.CONTEXT_FILTERS_NEED_DASHBOARD)
        return value

    @field_validator("env_id")
    @classmethod
    def _known_environment(cls, value: str | None, info: ValidationInfo) -> str | None:
        known = (info.context or {}).get("environments")
        if value is not None and known is not None and value not in known:
            raise ValueError(texts.UNKNOWN_ENVIRONMENT.format(env=value))
        return value

    @field_validator("route")
    @classmethod
    def _path_only(cls, value: str) -> str:
        if not value.startswith("/") or value.startswith("//") or "\\" in value:
            raise ValueError(texts.CONTEXT_ROUTE_NOT_A_PATH)
        # Rejected, not cleaned: our page builds the route from its URL, which is ASCII; a raw
        # invisible or control character means the payload was forged.
        if _categories(value) & _UNPRINTABLE:
            raise ValueError(texts.CONTEXT_INVISIBLE_CHARACTERS)
        return value

    @field_validator("object_name")
    @classmethod
    def _no_control_characters(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if _CONTROL.search(value) or _categories(value) & _BREAKING:
            raise ValueError(texts.CONTEXT_CONTROL_CHARACTERS)
        # Stripped, not rejected: titles copied into Superset carry bidi and zero-width marks
        # innocently, and the person cannot fix a title from the chat; unseen, they could hide
        # text from the person while the model reads it.
        visible = "".join(char for char in value if unicodedata.category(char) != _FORMAT)
        return visible or None

    def public(self) -> dict[str, Any]:
        """As the page sent it: a version-1 context has none of version 2's fields."""
        left_out = set(_VERSION_2_FIELDS) if self.context_version == 1 else None
        return self.model_dump(by_alias=True, mode="json", exclude=left_out)


def visible_name(name: str | None) -> str | None:
    """A title from Superset as a context name: what the person can see of it, on one line,
    within the context's bound (Superset keeps longer titles than a URL may carry)."""
    if not name:
        return None
    kept = "".join(
        " " if unicodedata.category(char) in _BREAKING else char
        for char in name
        if unicodedata.category(char) != _FORMAT
    )
    return " ".join(kept.split())[:MAX_NAME_CHARS] or None


class ContextRejected(SstoolsError, ValueError):
    """A UIContext that must not reach the prompt; ``field`` names what is wrong."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def parse_uicontext(raw: Any, environments: set[str]) -> UIContext:
    """Validate a raw UIContext payload; raise :class:`ContextRejected` naming the field."""
    try:
        size = len(json.dumps(raw, ensure_ascii=False).encode())
    except UnicodeEncodeError as exc:  # a lone surrogate from "\\ud800" in the JSON
        raise ContextRejected("uicontext", texts.CONTEXT_LONE_SURROGATE) from exc
    if not isinstance(raw, dict):
        raise ContextRejected("uicontext", texts.CONTEXT_NOT_AN_OBJECT)
    limit = MAX_CONTEXT_V2_BYTES if raw.get("contextVersion") == 2 else MAX_CONTEXT_BYTES
    if size > limit:
        raise ContextRejected("uicontext", texts.CONTEXT_TOO_LARGE.format(size=size, limit=limit))
    try:
        return UIContext.model_validate(raw, context={"environments": environments})
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or "uicontext"
        raise ContextRejected(f"uicontext.{field}", error["msg"]) from exc


def prompt_block(context: UIContext | None) -> str:
    """The system-prompt section describing the UI context (or saying it is unavailable)."""
    heading = texts.CONTEXT_HEADING
    if context is None:
        return f"{heading}\n{texts.CONTEXT_UNAVAILABLE}"
    payload = json.dumps(context.public(), ensure_ascii=False, sort_keys=True)
    payload = payload.replace("<", "\\u003c").replace(">", "\\u003e")
    return f"{heading}\n{BLOCK_START}\n{payload}\n{BLOCK_END}"


def system_message(prompt: str, context: UIContext | None) -> SystemMessage:
    """The system prompt with the context handed over beside it as data: a model reads the
    prompt's block, the offline planner reads the data (langchain-openai never sends it)."""
    handed = context.model_dump(mode="json") if context else None
    return SystemMessage(prompt, additional_kwargs={_HANDED: handed})


def handed_context(messages: Sequence[BaseMessage]) -> UIContext | None:
    """The context :func:`system_message` handed over (None: there is none, or no prompt)."""
    system = next((m for m in messages if isinstance(m, SystemMessage)), None)
    raw = system.additional_kwargs.get(_HANDED) if system else None
    return None if raw is None else UIContext.model_validate(raw)
