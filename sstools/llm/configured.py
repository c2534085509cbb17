"""The chat model configured in settings: an OpenAI-compatible endpoint, or none at all."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from sstools.config import Settings


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
        timeout=120,
        max_retries=1,
    )
