"""Tool calls a model wrote as text instead of ``tool_calls``: recognised, never shown raw.

Weak and mid-size models often put the call in the message itself::

    ```json
    {"name": "get_health_summary", "arguments": {}}
    ```
    <tool_call>{"name": "search_dashboards", "arguments": {"query": "энерг"}}</tool_call>
    {"function": {"name": "list_backups", "parameters": {}}}

:func:`read_calls` finds such calls (fenced, in ``<tool_call>``/``<tools>``/``<function_call>``
tags, or bare JSON — with ``arguments``, ``parameters`` or ``args``, a ``function`` object or a
``function`` name, a ``tool_calls`` list, and arguments as a JSON string). Only objects of exactly
a call's shape count, so a dashboard record quoted in an answer is not taken for a call.
:func:`problems` says, in English for the model, what makes them unusable against the offered
tools. Both are pure and never raise, whatever the text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

_FENCED = re.compile(r"```[ \t]*([A-Za-z_\-]*)[ \t]*\n?(.*?)```", re.S)
_TAGGED = re.compile(r"<(tool_call|tools|function_call)>(.*?)(?:</\1>|\Z)", re.S | re.I)
# A call written with broken JSON still names itself: enough to tell the model what went wrong.
_NAMED = re.compile(r'"(?:name|function)"\s*:\s*"([A-Za-z0-9_\-]{1,64})"')
_LOOKS_LIKE_A_CALL = re.compile(r'"(?:arguments|parameters)"\s*:')
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")

_ARGUMENT_KEYS = ("arguments", "parameters", "args")
_CALL_KEYS = frozenset({"name", "type", "id", *_ARGUMENT_KEYS})
_WRAPPED_KEYS = frozenset({"type", "id", "function"})
_MAX_TEXT = 100_000  # a longer reply is not scanned: no call is that long


@dataclass(frozen=True)
class TextCall:
    """One call as written: its tool name and arguments, or why its arguments are unusable."""

    name: str
    arguments: dict[str, Any] | None  # None: see ``problem``
    problem: str | None = None


@dataclass(frozen=True)
class WrittenCalls:
    """The calls a reply wrote, and its words outside them (the prose around a fenced call)."""

    calls: tuple[TextCall, ...]
    prose: str


def _arguments(value: object) -> tuple[dict[str, Any] | None, str | None]:
    if value is None:
        return {}, None
    if isinstance(value, str):  # OpenAI's own wire form: the arguments as a JSON string
        if not value.strip():
            return {}, None
        try:
            value = json.loads(value)
        except ValueError:
            return None, "its arguments are not valid JSON"
    if isinstance(value, dict):
        return {str(key): item for key, item in value.items()}, None
    return None, "its arguments must be a JSON object"


def _one(item: object, *, wrapped: bool = False) -> list[TextCall] | None:
    """The calls ``item`` is, if it has exactly a call's shape (None otherwise)."""
    if isinstance(item, list):
        calls = [_one(each) for each in item]
        if not calls or any(each is None for each in calls):
            return None
        return [call for each in calls if each for call in each]
    if not isinstance(item, dict):
        return None
    keys = set(item)
    if keys == {"tool_calls"}:
        return _one(item["tool_calls"])
    function = item.get("function")
    if isinstance(function, dict) and keys <= _WRAPPED_KEYS:
        return _one(function, wrapped=True)
    if isinstance(function, str) and keys <= {"function", *_CALL_KEYS} - {"name"}:
        item = {"name": function, **{key: item[key] for key in keys if key != "function"}}
        keys = set(item)
        wrapped = True
    name = item.get("name")
    if not isinstance(name, str) or not keys <= _CALL_KEYS or not _TOOL_NAME.match(name):
        return None
    given = [key for key in _ARGUMENT_KEYS if key in item]
    if not given and not wrapped:  # {"name": "revenue", "type": "FLOAT"} is a record, not a call
        return None
    if len(given) > 1:
        return [TextCall(name, None, "it gives its arguments twice")]
    arguments, problem = _arguments(item[given[0]] if given else None)
    return [TextCall(name, arguments, problem)]


def _parsed(block: str, *, tagged: bool) -> list[TextCall] | None:
    """The calls a block holds; a tagged or call-like block of broken JSON is a broken call."""
    text = block.strip()
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        value = _concatenated(text)
        if value is None:
            if not (tagged or _LOOKS_LIKE_A_CALL.search(text)):
                return None
            named = _NAMED.search(text)
            return [TextCall(named.group(1) if named else "", None, "it is not valid JSON")]
    return _one(value)


def _concatenated(text: str) -> list[object] | None:
    """Several JSON values one after another (one call a line), or None."""
    decoder, values, at = json.JSONDecoder(), [], 0
    while at < len(text):
        try:
            value, end = decoder.raw_decode(text, at)
        except ValueError:
            return None
        values.append(value)
        at = end
        while at < len(text) and text[at] in " \t\r\n,;":
            at += 1
    return values or None


def read_calls(text: str) -> WrittenCalls | None:
    """The tool calls ``text`` writes, or None when it writes none (an ordinary answer)."""
    if not isinstance(text, str) or len(text) > _MAX_TEXT or not text.strip():
        return None
    calls: list[TextCall] = []
    prose = text
    taken: list[tuple[int, int]] = []  # a fenced block inside a tag is the tag's
    for pattern, tagged in ((_TAGGED, True), (_FENCED, False)):
        for match in pattern.finditer(text):
            if any(start <= match.start() < end for start, end in taken):
                continue
            found = _parsed(match.group(2), tagged=tagged)
            if found:
                calls.extend(found)
                taken.append(match.span())
                prose = prose.replace(match.group(0), " ")
    if not calls and text.lstrip()[:1] in ("{", "["):
        found = _parsed(text, tagged=False)
        if found:
            calls, prose = found, ""
    if not calls:
        trailing = _after_prose(text)
        if trailing is None:
            return None
        calls, prose = trailing
    return WrittenCalls(calls=tuple(calls), prose=" ".join(prose.split()))


_BRACES_TRIED = 20  # where a call may start after the prose: the first few objects only


def _after_prose(text: str) -> tuple[list[TextCall], str] | None:
    """«Сейчас проверю: {"name": …}»: a call of exactly a call's shape that ends the reply."""
    decoder, end = json.JSONDecoder(), len(text.rstrip(" \t\r\n."))
    at = text.find("{")
    for _ in range(_BRACES_TRIED):
        if at < 0:
            return None
        try:
            value, stop = decoder.raw_decode(text, at)
        except ValueError:
            value, stop = None, -1
        if stop == end:
            found = _one(value)
            return (found, text[:at]) if found else None
        at = text.find("{", at + 1)
    return None


_OPENINGS = ("```", "<tool_call", "<tools", "<function_call")
_OBJECT_OPENS = re.compile(r'\{\s*(?:"|$)')


def call_may_start(text: str) -> int | None:
    """Where in a reply streamed so far a written call may begin (None: nowhere yet).

    For a stream that shows tokens as they come: the text before this index is safe to show,
    the rest waits for the whole reply (a prefix of an opening counts, as it may grow into one).
    """
    stripped = text.lstrip()
    if not stripped or stripped[0] in "{[":
        return 0
    found = [at for at in (text.find(opening) for opening in _OPENINGS) if at >= 0]
    # A JSON object after prose («Сейчас проверю: {"name": …}»), or one that may become one.
    found += [match.start() for match in _OBJECT_OPENS.finditer(text)][:1]
    for opening in _OPENINGS:  # "``" or "<too" at the end may be the start of one
        for size in range(1, len(opening)):
            if text.endswith(opening[:size]):
                found.append(len(text) - size)
    return min(found) if found else None


def problems(
    written: WrittenCalls,
    offered: list[str],
    arguments: Mapping[str, type[BaseModel]],
    *,
    checked: Collection[str] = (),
) -> list[str]:
    """What makes the calls unusable, in English for the model; empty: every call may go on.

    ``offered``: the tool names offered this turn; ``arguments``: each tool's arguments model;
    ``checked``: tools not offered that may still go on, for the checks to refuse in words a
    person reads (those the role may not use: «Недостаточно прав…»).
    """
    out: list[str] = []
    for call in written.calls:
        label = f"`{call.name}`" if call.name else "the call"
        if call.problem is not None:
            out.append(f"{label}: {call.problem}")
        elif (call.name not in offered and call.name not in checked) or (
            call.name not in arguments
        ):
            out.append(f"{label} is not an offered tool; offered: {', '.join(offered)}")
        else:
            try:
                arguments[call.name].model_validate(call.arguments)
            except ValidationError as exc:
                wrong = [f"{'.'.join(map(str, e['loc'])) or '-'}: {e['msg']}" for e in exc.errors()]
                out.append(f"{label}: invalid arguments ({'; '.join(wrong[:5])})")
    return out
