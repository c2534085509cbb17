"""A chat model whose reply is a function of the messages and the offered tools.

As pydantic-ai's ``FunctionModel``: no network, no weights, the same graph. The offline planner
(:mod:`sstools.agent.offline.planner`) is one such function; tests and benches script the LLM with
others (:mod:`sstools.testing`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict

# ``(messages, offered tool names) -> reply``: the whole behaviour of a FunctionChatModel.
ReplyFunction = Callable[[list[BaseMessage], list[str]], AIMessage]


class FunctionChatModel(BaseChatModel):
    """A LangChain chat model that answers with ``function(messages, offered_tool_names)``.

    Tools bound with :meth:`bind_tools` reach the function as their names, in the order offered;
    the reply may carry ``tool_calls``. It does not stream: a reply arrives whole.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    function: ReplyFunction

    @property
    def _llm_type(self) -> str:
        return "function"

    def bind_tools(
        self, tools: Sequence[Any], **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    def reply(self, messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        """The answer to ``messages`` with ``offered`` tools bound (override to observe calls)."""
        return self.function(messages, offered)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        offered = [tool["function"]["name"] for tool in kwargs.get("tools", [])]
        message = self.reply(list(messages), offered)
        return ChatResult(generations=[ChatGeneration(message=message)])
