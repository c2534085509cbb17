"""Values a tool puts into a URL path: validated where the model gives them, encoded in one place.

The model is not trusted, so an id or a name must stay one segment of the intended route.
Every segment is percent-encoded with nothing kept safe, so ``/``, ``?``, ``#`` and ``%`` stay
inside it. What encoding cannot neutralise is refused: ``.`` and ``..`` survive quoting and a
client resolves them; ``/`` and ``\\`` because servers decode ``%2F`` (uvicorn does) or treat a
backslash as a separator (some proxies) before routing.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated
from urllib.parse import quote, unquote

from pydantic import AfterValidator, BeforeValidator, Field

from sstools.agent.tools.call import ToolArgumentError
from sstools.ids import ENV_ID_PATTERN, MAX_ID

MAX_NAME = 256
_DOT_SEGMENTS = frozenset({".", ".."})
_SEPARATORS = ("/", "\\")
_CONTROL_CATEGORIES = frozenset({"Cc", "Cs"})


class UnsafeSegment(ToolArgumentError):
    """A value that would not stay one path segment, whatever the encoding (a ValueError, so
    pydantic reports it against the argument's name)."""


def check_segment(value: str) -> str:
    """The value itself, when it can be one path segment; else :class:`UnsafeSegment`."""
    if value == "" or value in _DOT_SEGMENTS:
        raise UnsafeSegment("must not be empty, '.' or '..'")
    if any(separator in value for separator in _SEPARATORS):
        raise UnsafeSegment("must not contain '/' or '\\'")
    if any(unicodedata.category(char) in _CONTROL_CATEGORIES for char in value):
        raise UnsafeSegment("must not contain control characters")
    return value


def is_inert(raw_segment: str) -> bool:
    """Whether a segment as sent still reads as one segment once a server decodes it."""
    decoded = unquote(raw_segment)
    return (
        bool(decoded)
        and decoded not in _DOT_SEGMENTS
        and not any(separator in decoded for separator in _SEPARATORS)
    )


def api_path(prefix: str, *segments: str | int) -> str:
    """``api_path("/api/databases", 7, "schemas", name)``: the fixed prefix, then each segment
    percent-encoded; raises :class:`UnsafeSegment` for one that cannot be made safe."""
    parts = [prefix.rstrip("/")]
    for segment in segments:
        if isinstance(segment, bool) or not isinstance(segment, int | str):
            raise UnsafeSegment(f"a path segment must be text or an integer, not {segment!r}")
        parts.append(quote(check_segment(str(segment)), safe=""))
    return "/".join(parts)


def _not_a_boolean(value: object) -> object:
    # JSON true is not the id 1, whatever Python's bool says.
    if isinstance(value, bool):
        raise ValueError("must be an integer, not a boolean")
    return value


# Field first: after a BeforeValidator its bounds would leave the JSON schema the model reads.
ObjectId = Annotated[int, Field(ge=1, le=MAX_ID), BeforeValidator(_not_a_boolean)]
PathName = Annotated[str, Field(min_length=1, max_length=MAX_NAME), AfterValidator(check_segment)]
TaskId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")]
EnvId = Annotated[str, Field(max_length=64, pattern=ENV_ID_PATTERN)]
