"""Errors as HTTP answers: the shapes of an error's body, and the handlers that read the table.

The errors carry data and words only; which status and which body each gets is one table,
``sstools.app.ERROR_ANSWERS`` (error class → :class:`Answer`), read by :func:`install`. An
error's nearest class in the table answers for it. The rest here are the framework's own
cases: a request that fails validation (422), a pool that is exhausted (503), and a bug (500).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from sstools.redaction import redact_text, secret_field
from sstools.superset import SupersetError
from sstools.texts import http as texts

logger = structlog.get_logger(__name__)

Body = Callable[[Any], dict[str, Any]]


def detail(exc: Exception) -> dict[str, Any]:
    """``{"detail": <the error's words>}``: most refusals."""
    return {"detail": str(exc)}


def field_refusal(exc: Any) -> dict[str, Any]:
    """The shape of every other 422: a list naming the request field (``exc.field``, dotted)."""
    return {"detail": field_error(exc.field, exc.message).errors()}


def field_error(
    field: str, message: str, *, where: str = "body", kind: str = "value_error"
) -> RequestValidationError:
    """A route's own 422 for one field (dotted), in the shape pydantic's refusals have."""
    return RequestValidationError(
        [{"type": kind, "loc": (where, *field.split(".")), "msg": message}]
    )


def role_refusal(exc: Any) -> dict[str, Any]:
    """A 403 for a role: the words and the role that would do (the agent reads it)."""
    return {"detail": str(exc), "required_role": exc.required.value}


def superset_refusal(template: str) -> Body:
    """Superset's answer in our words (``template`` with ``env`` and ``message``), naming it."""

    def body(exc: SupersetError) -> dict[str, Any]:
        return {
            "detail": template.format(env=exc.env_id, message=exc.message),
            "env_id": exc.env_id,
        }

    return body


def superset_bad_request(exc: SupersetError) -> dict[str, Any]:
    """A refusal of the input is a 422 like our own: the list of errors, naming the field."""
    loc = ["body", exc.field] if exc.field else ["request"]
    error = {"type": "superset_refused", "loc": loc, "msg": exc.message}
    return {"detail": [error], "env_id": exc.env_id}


def retry_after(exc: Any) -> dict[str, str]:
    return {"Retry-After": str(exc.retry_after_s)}


@dataclass(frozen=True)
class Answer:
    """How the edge answers one error class: the status, the body, any headers."""

    status: int
    body: Body = detail
    headers: Callable[[Any], dict[str, str]] | None = None

    def response(self, exc: Exception) -> JSONResponse:
        headers = self.headers(exc) if self.headers else None
        return JSONResponse(self.body(exc), status_code=self.status, headers=headers)


def install(app: FastAPI, table: Mapping[type[Exception], Answer]) -> None:
    """Answer each error class of ``table`` (and its subclasses) as the table says."""

    async def answer(request: Request, exc: Exception) -> JSONResponse:
        nearest = next(cls for cls in type(exc).__mro__ if cls in table)
        return table[nearest].response(exc)

    for error in table:
        app.add_exception_handler(error, answer)


# A 422 echoes the offending value so a person can see what was wrong, but never a secret and
# never megabytes: secrets are redacted as everywhere (sstools.redaction), long values cut.
_ECHO_CHARS = 200
REDACTED = "[redacted]"


def _plain(value: Any) -> Any:
    """``value`` as JSON-safe data: secrets redacted, no NaN, no lone surrogates."""
    if isinstance(value, dict):
        return {
            _plain(str(key)): REDACTED if secret_field(str(key), item) else _plain(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(item) for item in value]
    if isinstance(value, str):
        return redact_text(value.encode("utf-8", "replace").decode("utf-8"), REDACTED)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if abs(value) < 2**53 else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return _plain(str(value))


def _echo(value: Any, loc: list[Any]) -> Any:
    if any(secret_field(str(part), value) for part in loc[1:]):
        return REDACTED
    plain = _plain(value)
    text = plain if isinstance(plain, str) else json.dumps(plain, ensure_ascii=False)
    return plain if len(text) <= _ECHO_CHARS else text[:_ECHO_CHARS] + "…"


async def invalid_request(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = []
    for error in exc.errors():
        loc = [_plain(part) for part in error.get("loc", ())]
        shown: dict[str, Any] = {"type": error.get("type"), "loc": loc, "msg": error.get("msg")}
        if "input" in error:
            shown["input"] = _echo(error["input"], loc)
        if error.get("ctx"):
            shown["ctx"] = {key: _echo(value, [key]) for key, value in error["ctx"].items()}
        errors.append(shown)
    return JSONResponse({"detail": errors}, status_code=422)


# How a face other than the API answers an error to a request that is its own (the web's
# page navigation): its response, or None when the request is not one of its own.
FaceAnswer = Callable[[Request, int, str], Response | None]


def internal_error(
    headers: Mapping[str, str], as_page: FaceAnswer | None = None
) -> Callable[..., Any]:
    """The last resort: no internals in the body, the full story in the log.

    ``headers`` go on the response by hand: this one bypasses every middleware, the web's error
    pages included, so ``as_page`` (given by the app: http does not know the web) answers a
    person's page navigation with the same page as every other error; the rest get JSON.
    """

    async def handler(request: Request, exc: Exception) -> Response:
        logger.error("unhandled_error", method=request.method, path=request.url.path, exc_info=exc)
        page = as_page(request, 500, texts.INTERNAL_ERROR) if as_page else None
        if page is not None:
            page.headers.update(headers)
            return page
        return JSONResponse({"detail": texts.INTERNAL_ERROR}, status_code=500, headers=headers)

    return handler


# Every connection stayed busy for the pool's whole wait: overloaded, not broken.
DATABASE_BUSY_RETRY_AFTER_S = 5


async def database_busy(request: Request, exc: Exception) -> JSONResponse:
    logger.warning("database_pool_exhausted", method=request.method, path=request.url.path)
    message = texts.DATABASE_BUSY
    if request.method not in {"GET", "HEAD", "OPTIONS"}:
        message += texts.DATABASE_BUSY_WRITE
    return JSONResponse(
        {"detail": message},
        status_code=503,
        headers={"Retry-After": str(DATABASE_BUSY_RETRY_AFTER_S)},
    )
