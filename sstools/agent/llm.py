"""The agent's chat model, picked from settings: an OpenAI-compatible endpoint, or offline."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from sstools.agent.offline import offline_planner
from sstools.config import Settings


def chat_model(settings: Settings, environment_ids: list[str]) -> BaseChatModel:
    """The configured provider: OpenAI-compatible when SSTOOLS_LLM_BASE_URL is set, else offline."""
    if settings.llm_base_url:
        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else "not-needed"
        return ChatOpenAI(
            base_url=settings.llm_base_url,
            model=settings.llm_model,
            api_key=SecretStr(key),
            streaming=True,
            timeout=120,
            max_retries=1,
        )
    return offline_planner(environment_ids)
