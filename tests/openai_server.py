"""A local OpenAI-compatible chat-completions server whose answers are scripted.

It speaks the real wire format (SSE chunks, tool-call deltas split across chunks), so the real
client (langchain-openai → openai) is what the tests exercise. It records every request.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from sstools.app import create_app
from sstools.config import Settings
from sstools.testing import LiveServer
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport

# messages and tools as the client sent them → {"text": "..."} or {"tool_calls": [(name, args)]}
# (args a dict, or a string sent verbatim: malformed JSON) or {"status": 401, "body": {...}};
# "usage": (prompt tokens, completion tokens) is reported in the stream's last chunk when the
# client asks for it (stream_options.include_usage), as real servers do
Reply = dict[str, Any]
OpenAIScript = Callable[[list[dict[str, Any]], list[dict[str, Any]]], Reply]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"


def _usage_chunk(usage: dict[str, int]) -> str:
    """The stream's last chunk when usage is asked for: no choices, only the count."""
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": "scripted",
        "choices": [],
        "usage": usage,
    }
    return f"data: {json.dumps(body)}\n\n"


def _arguments(args: dict[str, Any] | str) -> str:
    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)


class ScriptedOpenAI:
    def __init__(self, script: OpenAIScript) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.authorization: list[str] = []
        self.app = Starlette(
            routes=[Route("/v1/chat/completions", self.completions, methods=["POST"])]
        )

    async def completions(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        self.authorization.append(request.headers.get("authorization", ""))
        reply = self.script(body["messages"], body.get("tools", []))
        if "status" in reply:  # the endpoint refuses, as real ones do, with a JSON error body
            return JSONResponse(reply["body"], status_code=reply["status"])
        if not body.get("stream"):
            return JSONResponse(self._whole(reply))
        usage = (
            reply.get("usage") if (body.get("stream_options") or {}).get("include_usage") else None
        )
        return StreamingResponse(self._stream(reply, usage), media_type="text/event-stream")

    @staticmethod
    def _whole(reply: Reply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.get("text")}
        if reply.get("tool_calls"):
            message["tool_calls"] = [
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": _arguments(args)},
                }
                for i, (name, args) in enumerate(reply["tool_calls"])
            ]
        finish = "tool_calls" if reply.get("tool_calls") else "stop"
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": "scripted",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        }

    @staticmethod
    async def _stream(reply: Reply, usage: tuple[int, int] | None) -> AsyncIterator[str]:
        yield _chunk({"role": "assistant", "content": ""})
        for word in (reply.get("text") or "").split(" "):
            if word:
                yield _chunk({"content": word + " "})
        for i, (name, args) in enumerate(reply.get("tool_calls") or []):
            arguments = _arguments(args)
            half = len(arguments) // 2
            yield _chunk(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": f"call_{i}",
                            "type": "function",
                            "function": {"name": name, "arguments": arguments[:half]},
                        }
                    ]
                }
            )
            yield _chunk(
                {"tool_calls": [{"index": i, "function": {"arguments": arguments[half:]}}]}
            )
        yield _chunk({}, "tool_calls" if reply.get("tool_calls") else "stop")
        if usage is not None:
            prompt, completion = usage
            counted = {"prompt_tokens": prompt, "completion_tokens": completion}
            yield _usage_chunk(counted | {"total_tokens": prompt + completion})
        yield "data: [DONE]\n\n"


def tool_then_text(name: str, args: dict[str, Any], text: str) -> OpenAIScript:
    """Call ``name`` first; once a tool result is in the conversation, answer ``text``."""

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        if messages[-1]["role"] == "tool":
            return {"text": text}
        return {"tool_calls": [(name, args)]}

    return script


def tagged_health_call(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
    """As Qwen2.5 served by llama.cpp without its tool-call parser answers: the call of
    get_health_summary written in ``<tool_call>`` tags in the content; after its result, an
    answer about dashboard 3."""
    if messages[-1]["role"] == "tool":
        return {"text": "Дашборд 3 в порядке."}
    return {"text": '<tool_call>\n{"name": "get_health_summary", "arguments": {}}\n</tool_call>'}


@asynccontextmanager
async def chat_through_openai_client(
    script: OpenAIScript, settings: Settings, fake_superset: FakeSuperset
) -> AsyncIterator[tuple[httpx.AsyncClient, ScriptedOpenAI]]:
    """The app with its model behind the real OpenAI client, talking to ``script``."""
    llm = ScriptedOpenAI(script)
    with LiveServer(llm.app) as llm_server:
        app_settings = settings.model_copy(
            update={
                "llm_base_url": f"{llm_server.url}/v1",
                "llm_model": "scripted",
                "llm_api_key": SecretStr("sk-test-secret"),
            }
        )
        app = create_app(app_settings, superset_transport=RoutingTransport(fake_superset))
        with LiveServer(app) as server:
            async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
                yield client, llm
