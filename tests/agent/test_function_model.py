"""FunctionChatModel: a chat model whose reply is a function of the messages and offered tools."""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel

from sstools.agent.chat_model import chat_model
from sstools.agent.offline.planner import OfflinePlanner
from sstools.agent.tools import CATALOGUE
from sstools.config import Settings
from sstools.llm.function_model import FunctionChatModel


class LookUp(BaseModel):
    """Look a word up."""

    word: str


def _calls_the_last_offered(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    if not offered:
        return AIMessage(content=f"нет инструментов, сообщений: {len(messages)}")
    return AIMessage(content="", tool_calls=[{"name": offered[-1], "args": {}, "id": "c1"}])


async def test_bound_tools_reach_the_function_as_names_in_order_and_calls_come_back() -> None:
    model = FunctionChatModel(function=_calls_the_last_offered)
    bound = model.bind_tools([CATALOGUE["search_dashboards"].schema(), LookUp])

    reply = await bound.ainvoke([HumanMessage("найди")])

    assert [call["name"] for call in reply.tool_calls] == ["LookUp"]
    unbound = model.invoke([HumanMessage("a"), HumanMessage("b")])
    assert unbound.content == "нет инструментов, сообщений: 2"


def test_with_no_model_endpoint_the_offline_planner_answers(settings: Settings) -> None:
    offline = chat_model(settings.model_copy(update={"llm_base_url": None}), ["ss-dev"])

    assert isinstance(offline, FunctionChatModel)
    assert offline.function == OfflinePlanner(environment_ids=("ss-dev",))
