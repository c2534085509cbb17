"""A page a person opened that fails answers as a page: the reason in words, never raw JSON.

The API's errors are JSON for every client; a browser's navigation (a GET that accepts HTML,
outside ``/api``) gets the same reason rendered in Russian with a way back. One middleware, so
every error path (the error table, a 422, an unknown route) is covered the same way; a bug (an
unhandled exception) is answered outside every middleware, so the app hands its last-resort
handler :func:`page_answer`, which renders the same page.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sstools.web.pages import templates
from sstools.web.strings import UI

_NOT_PAGES = ("/api/", "/static/", "/openapi.json", "/docs", "/metrics", "/healthz")
_TITLES = {403: "error_forbidden", 404: "error_not_found", 422: "error_bad_address"}


def _is_page(scope: Scope) -> bool:
    headers = dict(scope.get("headers", []))
    accept = headers.get(b"accept", b"").decode("latin-1")
    path = str(scope.get("path", ""))
    return (
        scope.get("method") in ("GET", "HEAD")
        and "text/html" in accept
        and not path.startswith(_NOT_PAGES)
    )


def words_of(body: bytes) -> str:
    """The reason an error body gives, as words: ``detail`` as text, or each refusal's ``msg``."""
    try:
        detail: Any = json.loads(body).get("detail")
    except (ValueError, AttributeError):
        return UI["error_unknown"]
    if isinstance(detail, list):
        return "; ".join(str(item.get("msg", "")) for item in detail if isinstance(item, dict))
    if isinstance(detail, dict):
        return str(detail.get("message") or UI["error_unknown"])
    return str(detail or UI["error_unknown"])


def error_page(status: int, message: str) -> bytes:
    title = UI[_TITLES.get(status, "error_server" if status >= 500 else "error_other")]
    sentence = message[:1].upper() + message[1:]  # the API's words start lower-case
    page = templates.env.get_template("error.html").render(t=UI, title=title, message=sentence)
    return page.encode()


def page_answer(request: Request, status: int, message: str) -> HTMLResponse | None:
    """The error page for a person's page navigation, None for any other request: how the
    last-resort handler (``sstools.http.errors.internal_error``), which runs outside
    :class:`HumanErrorPages`, answers a page as every other error does."""
    if not _is_page(request.scope):
        return None
    return HTMLResponse(error_page(status, message), status_code=status)


_REPLACED = (b"content-type", b"content-length")


def _json_error(start: Message) -> bool:
    kind = dict(start.get("headers", [])).get(b"content-type", b"")
    return bool(start["status"] >= 400 and kind.startswith(b"application/json"))


class HumanErrorPages:
    """Turns a JSON error answer to a page request into :func:`error_page`, status kept."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is_page(scope):
            await self.app(scope, receive, send)
            return
        held: Message | None = None
        body = bytearray()

        async def replace_errors(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start" and _json_error(message):
                held = message
                return
            if held is None or message["type"] != "http.response.body":
                await send(message)
                return
            body.extend(message.get("body", b""))
            if message.get("more_body"):
                return
            page = error_page(held["status"], words_of(bytes(body)))
            kept = [(k, v) for k, v in held.get("headers", []) if k not in _REPLACED]
            page_headers = [(b"content-type", b"text/html; charset=utf-8")]
            page_headers.append((b"content-length", str(len(page)).encode()))
            start = {"type": "http.response.start", "status": held["status"]}
            await send({**start, "headers": [*kept, *page_headers]})
            await send({"type": "http.response.body", "body": page})

        await self.app(scope, receive, replace_errors)
