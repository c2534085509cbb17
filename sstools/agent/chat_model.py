"""The agent's chat model: the configured endpoint, or the offline planner without one."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from sstools.agent.offline.planner import OfflinePlanner, offline_planner
from sstools.config import Settings
from sstools.llm.configured import configured_chat_model
from sstools.llm.function_model import FunctionChatModel


def chat_model(settings: Settings, environment_ids: list[str]) -> BaseChatModel:
    """OpenAI-compatible when SSTOOLS_LLM_BASE_URL is set, else the offline planner."""
    return configured_chat_model(settings) or offline_planner(environment_ids)


def answers_offline(model: BaseChatModel) -> bool:
    """Whether ``model`` is the offline planner (no language model configured)."""
    return isinstance(model, FunctionChatModel) and isinstance(model.function, OfflinePlanner)
