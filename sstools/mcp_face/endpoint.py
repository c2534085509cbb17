"""``/mcp``: the MCP face over streamable HTTP, on the official SDK's low-level server.

Every HTTP request is signed in on its own (``Authorization: Bearer`` with a personal access
token or a session token; never a cookie, never a URL): the caller's current role decides what
``tools/list`` shows and what ``tools/call`` may do, so a demotion applies at the next call.
Sessions are the SDK's (``Mcp-Session-Id``), kept in the worker that opened them: a load
balancer in front of several workers routes by that header (docs/mcp.md). What must outlive a
worker — a held write — is stored in the database, never only here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import McpError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Message, Receive, Scope, Send

from sstools import __version__
from sstools.agent.executor import ToolExecutor
from sstools.auth.tokens import Caller, InvalidToken
from sstools.http.auth import HOLD_HEADER, resolve_principal
from sstools.http.services import Services
from sstools.mcp_face import calls
from sstools.mcp_face.tools import tools_for
from sstools.texts import http as http_texts
from sstools.texts import mcp as texts


class _ClosedStreamIsNoError(logging.Filter):
    """The SDK logs a traceback when a host closes its session's event stream: a normal end."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, anyio.ClosedResourceError)


logging.getLogger("mcp.server.streamable_http").addFilter(_ClosedStreamIsNoError())

_CALLER = "sstools_caller"
_TOKEN = "sstools_token"  # noqa: S105 - the key the caller's token is kept under for the request
_CONFIRM = "confirm"
_SESSION_HEADER = "mcp-session-id"
_OWNERS_KEPT = 100_000  # far more than the SDK keeps open at once


def _signed(request: Request | Any) -> tuple[Caller, str]:
    state = request.scope["state"]
    return state[_CALLER], state[_TOKEN]


def build_server(services: Services, executor: ToolExecutor) -> Server[Any, Request]:
    """The low-level server: its two handlers read who is asking from the HTTP request."""
    server: Server[Any, Request] = Server("sstools", version=__version__)
    face_executor = executor.for_face("mcp", {HOLD_HEADER: "writes"})

    async def list_tools(request: types.ListToolsRequest) -> types.ServerResult:
        caller, _ = _signed(server.request_context.request)
        return types.ServerResult(types.ListToolsResult(tools=tools_for(caller.role)))

    async def call_tool(request: types.CallToolRequest) -> types.ServerResult:
        context = server.request_context
        caller, token = _signed(context.request)
        http_request = context.request
        assert http_request is not None
        face = calls.Face(
            executor=face_executor,
            environments=services.environments,
            sessions=services.sessions,
            base_url=str(http_request.base_url),
        )
        params = context.session.client_params
        can_ask = bool(params and params.capabilities and params.capabilities.elicitation)

        async def ask(message: str) -> calls.Word:
            schema: dict[str, Any] = {
                "type": "object",
                "properties": {
                    _CONFIRM: {"type": "boolean", "title": texts.CONFIRM_FIELD, "default": True}
                },
            }
            answer = await context.session.elicit_form(message, schema, context.request_id)
            if answer.action == "accept" and (answer.content or {}).get(_CONFIRM, True) is True:
                return "accept"
            return "decline" if answer.action != "cancel" else "cancel"

        try:
            result = await calls.call(
                face,
                caller,
                token,
                request.params.name,
                request.params.arguments or {},
                ask if can_ask else None,
            )
        except calls.UnknownTool as exc:
            raise McpError(types.ErrorData(code=types.INVALID_PARAMS, message=str(exc))) from exc
        return types.ServerResult(result)

    server.request_handlers[types.ListToolsRequest] = list_tools
    server.request_handlers[types.CallToolRequest] = call_tool
    return server


class McpEndpoint:
    """The ASGI app at ``/mcp``: signs the request in, then hands it to the SDK's sessions."""

    def __init__(self, services: Services, executor: ToolExecutor) -> None:
        self._services = services
        self._manager = StreamableHTTPSessionManager(app=build_server(services, executor))
        # Which account opened each session of this worker (sessions live in their worker).
        self._owners: dict[str, str] = {}

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The SDK's sessions, for the app's life. Their task group lives in a task of its own:
        an app's lifespan may be left from another task than it was entered (a test's client)."""
        ready, stop = asyncio.Event(), asyncio.Event()

        async def hold() -> None:
            async with self._manager.run():
                ready.set()
                await stop.wait()

        holder = asyncio.create_task(hold())
        await asyncio.wait(
            [holder, asyncio.create_task(ready.wait())], return_when="FIRST_COMPLETED"
        )
        if holder.done():  # it could not start: say why
            holder.result()
        try:
            yield
        finally:
            stop.set()
            await holder

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        kind, _, token = request.headers.get("authorization", "").partition(" ")
        token = token.strip() if kind.lower() == "bearer" else ""
        if not token:
            await self._refuse(scope, receive, send, http_texts.NOT_AUTHENTICATED)
            return
        try:
            caller = await resolve_principal(self._services, token)
        except InvalidToken as exc:
            await self._refuse(scope, receive, send, str(exc))
            return
        session_id = request.headers.get(_SESSION_HEADER)
        if session_id is not None and self._owners.get(session_id) != caller.uid:
            # Another person's session: its elicitations must never be answered by this caller.
            await self._refuse(scope, receive, send, texts.NOT_YOUR_SESSION, status=404)
            return
        state = scope.setdefault("state", {})
        state[_CALLER], state[_TOKEN] = caller, token

        async def noting_the_session(message: Message) -> None:
            if message["type"] == "http.response.start" and session_id is None:
                for name, value in message.get("headers", []):
                    if name.decode("latin-1").lower() == _SESSION_HEADER:
                        self._owners[value.decode("latin-1")] = caller.uid
                        while len(self._owners) > _OWNERS_KEPT:  # the oldest are long closed
                            del self._owners[next(iter(self._owners))]
            await send(message)

        await self._manager.handle_request(scope, receive, noting_the_session)

    @staticmethod
    async def _refuse(
        scope: Scope, receive: Receive, send: Send, detail: str, status: int = 401
    ) -> None:
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
        answer = JSONResponse({"detail": detail}, status_code=status, headers=headers)
        await answer(scope, receive, send)
