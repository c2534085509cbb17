"""Test doubles at the true boundaries, and helpers to drive a live server.

- :class:`ScriptedChatModel`: the LLM, as a function of the messages (it records every prompt).
- :class:`LiveServer`: a real uvicorn in a thread, so SSE streams and HTTP calls are real.
- :func:`read_events`: an SSE client that stops at ``done`` or ``confirm_required``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field
from starlette.types import ASGIApp

from sstools.agent.models import ToolCallingChatModel

Script = Callable[[list[BaseMessage], list[str]], AIMessage]

CHROMIUM = "/usr/bin/chromium"  # Debian's; Playwright never downloads a browser here
# As the machine's notes say: without the background-networking flags Chromium keeps dialling out.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class ScriptedChatModel(ToolCallingChatModel):
    """A chat model whose every answer is ``script(messages, offered_tool_names)``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: Script
    prompts: list[list[BaseMessage]] = Field(default_factory=list)
    offered: list[list[str]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        names = self.tool_names(kwargs)
        self.prompts.append(list(messages))
        self.offered.append(names)
        return ChatResult(generations=[ChatGeneration(message=self.script(messages, names))])

    def system_prompts(self) -> list[str]:
        return [
            str(m.content)
            for prompt in self.prompts
            for m in prompt
            if isinstance(m, SystemMessage)
        ]


def call_tool(name: str, args: dict[str, Any] | None = None, text: str = "") -> Script:
    """Call ``name`` once, then answer with the tool's result (or ``text``)."""

    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content=text or f"Готово: {messages[-1].content}"[:500])
        return AIMessage(
            content="",
            tool_calls=[{"name": name, "args": args or {}, "id": f"call_{len(messages)}"}],
        )

    return script


def answer(text: str) -> Script:
    return lambda messages, offered: AIMessage(content=text)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LiveServer:
    """Serve an ASGI app with uvicorn on a free loopback port, in a thread of its own."""

    def __init__(self, app: ASGIApp, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=20)


@contextmanager
def live(app: ASGIApp) -> Iterator[LiveServer]:
    with LiveServer(app) as server:
        yield server


async def read_events(
    client: httpx.AsyncClient,
    conversation_id: str,
    headers: dict[str, str],
    *,
    last_event_id: int | None = None,
    until: Callable[[dict[str, Any]], bool] = lambda e: e["type"] in ("done", "confirm_required"),
    timeout_s: float = 20.0,
) -> list[dict[str, Any]]:
    """Events from the SSE stream (each with its ``_id``) up to and including ``until``."""
    request_headers = dict(headers)
    if last_event_id is not None:
        request_headers["Last-Event-ID"] = str(last_event_id)
    events: list[dict[str, Any]] = []

    async def consume() -> None:
        async with client.stream(
            "GET", f"/api/agent/conversations/{conversation_id}/events", headers=request_headers
        ) as response:
            assert response.status_code == 200, await response.aread()
            event_id = None
            async for line in response.aiter_lines():
                if line.startswith("id:"):
                    event_id = int(line[3:].strip())
                elif line.startswith("data:"):
                    event = json.loads(line[5:].strip())
                    event["_id"] = event_id
                    events.append(event)
                    if until(event):
                        return

    await asyncio.wait_for(consume(), timeout_s)
    return events


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


def read_events_sync(
    client: httpx.Client,
    conversation_id: str,
    headers: dict[str, str],
    *,
    until: Callable[[dict[str, Any]], bool] = lambda e: e["type"] in ("done", "confirm_required"),
) -> list[dict[str, Any]]:
    """The blocking twin of :func:`read_events`, for hypothesis tests (which are synchronous)."""
    events: list[dict[str, Any]] = []
    with client.stream(
        "GET", f"/api/agent/conversations/{conversation_id}/events", headers=headers, timeout=20
    ) as response:
        for line in response.iter_lines():
            if line.startswith("data:"):
                events.append(json.loads(line[5:].strip()))
                if until(events[-1]):
                    break
    return events
