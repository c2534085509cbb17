"""The chat model configured in settings: an OpenAI-compatible endpoint, or none at all.

A slow or local model needs its own limits (docs/configuration.md): how long one request may
wait (``SSTOOLS_LLM_TIMEOUT_S``, the client's timeout: connecting, and each read), how many
times a failed request is sent again (``SSTOOLS_LLM_RETRIES``), how long a streamed reply may
stay silent between chunks (``SSTOOLS_LLM_STREAM_CHUNK_TIMEOUT_S``), and what is asked of the
reply (``SSTOOLS_LLM_MAX_TOKENS``, ``SSTOOLS_LLM_TEMPERATURE``).
"""

from __future__ import annotations

from typing import Any

import httpx
import openai
from langchain_core.language_models import BaseChatModel
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from sstools.config import Settings

# OpenAI itself reads only `max_completion_tokens` (its reasoning models refuse `max_tokens`);
# servers that speak its protocol may read only the older `max_tokens` (Ollama's openai layer,
# llama.cpp's server before 2026): they get both, with the same value.
_OPENAI_HOSTS = frozenset({"api.openai.com"})


def request_body_extras(settings: Settings) -> dict[str, Any]:
    """Fields ChatOpenAI does not send by itself, for the endpoint in ``settings``."""
    host = httpx.URL(settings.llm_base_url or "").host
    if settings.llm_max_tokens is None or host in _OPENAI_HOSTS:
        return {}
    return {"max_tokens": settings.llm_max_tokens}


def configured_chat_model(settings: Settings) -> BaseChatModel | None:
    """The OpenAI-compatible model when SSTOOLS_LLM_BASE_URL is set; ``None`` without one."""
    if not settings.llm_base_url:
        return None
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else "not-needed"
    return ChatOpenAI(
        base_url=settings.llm_base_url,
        model=settings.llm_model,
        api_key=SecretStr(key),
        streaming=True,
        # The reply's usage in the stream's last chunk: what a person's daily budget counts
        # (a server that sends none is estimated with the tokenizer instead).
        stream_usage=True,
        timeout=settings.llm_timeout_s,
        max_retries=settings.llm_retries,
        # Not the library's own variable (LANGCHAIN_OPENAI_STREAM_CHUNK_TIMEOUT_S, 120 s): ours.
        stream_chunk_timeout=settings.llm_stream_chunk_timeout_s,
        max_completion_tokens=settings.llm_max_tokens,  # ChatOpenAI's max_tokens, by its alias
        temperature=settings.llm_temperature,
        extra_body=request_body_extras(settings) or None,
        # A client of this model's own: langchain-openai's default is cached per address and
        # timeout across instances, so an app started later on a reused port (a test's, a
        # restarted worker's) inherited connections opened on a loop that has since closed.
        http_async_client=openai.DefaultAsyncHttpxClient(timeout=settings.llm_timeout_s),
    )


async def close_chat_model(model: BaseChatModel) -> None:
    """Close the HTTP client :func:`configured_chat_model` gave the model, if it has one."""
    if isinstance(model, ChatOpenAI) and model.http_async_client is not None:
        await model.http_async_client.aclose()
