"""The request body at the edge: a size limit (413) and strict JSON (422), before any route parses.

:class:`RequestBodyGuard` reads the body as it streams and stops at the limit, so an oversized
body costs at most the limit in memory; a declared ``Content-Length`` over it is refused unread.
A JSON body must be JSON as RFC 8259 and I-JSON (RFC 7493) define it: UTF-8, no ``NaN`` or
``Infinity``, no lone surrogates, numbers a 64-bit integer or a finite double, and a bounded
depth — anything else would otherwise fail deep inside the app (or its database) as a 500.
"""

from __future__ import annotations

import json
import math
import operator
import re
from collections.abc import Iterator
from itertools import chain, compress, repeat
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sstools.errors import SstoolsError
from sstools.texts import http as texts

MAX_JSON_DEPTH = 64
_INT64 = 2**63


class NotStrictJson(SstoolsError, ValueError):
    """The body parses in Python's lenient JSON but is not interoperable JSON."""


def _refuse_constant(name: str) -> Any:
    raise NotStrictJson(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotStrictJson(f"{text} is out of range for a JSON number")
    return value


def _int64(text: str) -> int:
    # Checked before int(): Python refuses (slowly) past 4300 digits anyway.
    if len(text.lstrip("-")) > 19 or not -_INT64 <= int(text) < _INT64:
        raise NotStrictJson("a number does not fit in a 64-bit integer")
    return int(text)


# Lone surrogates can only come from ``\\uD800``-``\\uDFFF`` escapes: raw ones are not UTF-8.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_CONTAINERS = frozenset({dict, list})


def _has_lone_surrogate(text: str, value: Any) -> bool:
    if _SURROGATE_ESCAPE.search(text) is None:
        return False
    try:  # json.loads joined the valid pairs: what is left cannot be encoded
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _of_type(nodes: list[Any], kind: type) -> Iterator[Any]:
    return compress(nodes, map(operator.is_, map(type, nodes), repeat(kind)))


def _too_deep(value: Any) -> bool:
    """Whether arrays and objects nest deeper than :data:`MAX_JSON_DEPTH`.

    Level by level, with every step in C (``map``, ``compress``, ``chain``): a Python loop over
    the nodes would cost more than parsing the body.
    """
    level = [value]
    for _ in range(MAX_JSON_DEPTH):
        children = list(
            chain(
                chain.from_iterable(_of_type(level, list)),
                chain.from_iterable(map(dict.values, _of_type(level, dict))),
            )
        )
        level = list(compress(children, map(_CONTAINERS.__contains__, map(type, children))))
        if not level:
            return False
    return True


def json_problem(body: bytes) -> str | None:
    """Why ``body`` is not strict JSON; ``None`` when it is, or when it is not JSON at all.

    Plain syntax errors are left to FastAPI, which reports them with their position.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return "the body is not UTF-8 text"
    try:
        value = json.loads(
            text, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_int64
        )
    except NotStrictJson as exc:
        return str(exc)
    except json.JSONDecodeError:
        return None
    except RecursionError:
        return f"nested deeper than {MAX_JSON_DEPTH} levels"
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and _too_deep(value):
        return f"nested deeper than {MAX_JSON_DEPTH} levels"
    if _has_lone_surrogate(text, value):
        return "a string holds a lone surrogate (\\ud800-\\udfff)"
    return None


def _is_json(headers: Headers) -> bool:
    media_type = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return media_type == "application/json" or (
        media_type.startswith("application/") and media_type.endswith("+json")
    )


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body already read, then whatever the server says next (a disconnect)."""
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if delivered:
            return await receive()
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


class RequestBodyGuard:
    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _too_large(self) -> JSONResponse:
        return JSONResponse(
            {"detail": texts.BODY_TOO_LARGE.format(limit=self.max_bytes)},
            status_code=413,
            headers={"Connection": "close"},
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await self._too_large()(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._too_large()(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        problem = json_problem(body) if body and _is_json(headers) else None
        if problem is not None:
            invalid = {"type": "json_invalid", "loc": ["body"], "msg": problem}
            await JSONResponse({"detail": [invalid]}, status_code=422)(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)
