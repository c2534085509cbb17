"""Drive sstools from tests and benchmarks: a scripted LLM, a live server, Chromium's flags.

As starlette ships ``TestClient``, the harness lives in the package, so the test suite and
``bench/`` share it without importing from each other.

- :class:`ScriptedChatModel`: the LLM as a function of the messages; it records every prompt.
- :func:`call_tool` and :func:`answer`: the two scripts most tests need.
- :class:`LiveServer`: a real uvicorn in a thread, so SSE streams and HTTP calls are real.
- :data:`CHROMIUM` and :data:`CHROMIUM_ARGS`: Debian's Chromium, kept off the network.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from pydantic import Field
from starlette.types import ASGIApp

from sstools.llm.function_model import FunctionChatModel, ReplyFunction

Script = ReplyFunction

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


class ScriptedChatModel(FunctionChatModel):
    """A :class:`FunctionChatModel` that remembers what it was asked, for tests to assert on.

    Every call appends the messages to :attr:`prompts` and the offered tool names to
    :attr:`offered`.
    """

    prompts: list[list[BaseMessage]] = Field(default_factory=list)
    offered: list[list[str]] = Field(default_factory=list)

    def __init__(self, script: Script, **data: Any) -> None:
        super().__init__(function=script, **data)

    @property
    def script(self) -> Script:
        """The function it answers with."""
        return self.function

    def reply(self, messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        self.prompts.append(messages)
        self.offered.append(offered)
        return super().reply(messages, offered)

    def system_prompts(self) -> list[str]:
        """The system prompt of every call, in order."""
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
    """Always answer ``text``, calling no tool."""
    return lambda messages, offered: AIMessage(content=text)


def free_port() -> int:
    """A loopback port nothing listens on at the moment of asking."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LiveServer:
    """Serve an ASGI app with uvicorn on a free loopback port, in a thread of its own.

    ``with LiveServer(app) as server:`` returns once the app has started (lifespan included);
    leaving the block shuts it down. ``server.url`` is its base URL.
    """

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
