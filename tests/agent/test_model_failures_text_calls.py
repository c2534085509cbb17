"""A model that writes its tool call as text: taken as the call, never shown raw (issue 21, 1).

Through the real graph and HTTP API; one through the real OpenAI client and the scripted
server, as a local model served by llama.cpp answers. The recogniser has its own property test.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from sstools.agent import texts
from sstools.agent.text_calls import call_may_start, problems, read_calls
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.conftest import dashboard_context
from tests.conftest import AuthHeaders
from tests.openai_server import chat_through_openai_client, tagged_health_call
from tests.support import ask, read_events, types

HEALTH = {"name": "get_health_summary", "arguments": {}}
# The forms seen from weak models, each a call of get_health_summary with no arguments.
FORMS = {
    "fenced": f"```json\n{json.dumps(HEALTH)}\n```",
    "fenced, prose around": f"Сейчас посмотрю.\n```\n{json.dumps(HEALTH)}\n```",
    "tool_call tags": f"<tool_call>\n{json.dumps(HEALTH)}\n</tool_call>",
    "tools tags": f"<tools>{json.dumps(HEALTH)}</tools>",
    "bare": json.dumps(HEALTH),
    "bare, parameters": json.dumps({"name": "get_health_summary", "parameters": {}}),
    "bare, function object": json.dumps(
        {"type": "function", "function": {"name": "get_health_summary", "arguments": "{}"}}
    ),
    "bare, function name": json.dumps({"function": "get_health_summary", "arguments": {}}),
}
RAW_MARKS = ('"name"', '"arguments"', '"parameters"', "```", "<tool", "get_health_summary")


def _shown(events: list[dict[str, Any]]) -> str:
    """Everything a person reads: messages, tokens, tool lines, cards."""
    return " ".join(
        str(event.get("text") or event.get("message") or "")
        for event in events
        if event["type"] in ("message", "token", "tool_result", "error", "permission_denied")
    )


def _written(text: str, answer: str) -> Any:
    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content=answer)
        return AIMessage(content=text)

    return script


@pytest.mark.parametrize("form", sorted(FORMS))
async def test_a_call_written_as_text_runs_as_the_call(make_agent: Any, form: str) -> None:
    async with make_agent(_written(FORMS[form], "Дашборд 3 в порядке.")) as agent:
        _, events = await agent.ask(
            "как дела у этого дашборда?", dashboard_context("3"), Role.analyst
        )
    assert [e["tool"] for e in events if e["type"] == "tool_call"] == ["get_health_summary"]
    assert [e["outcome"] for e in events if e["type"] == "tool_result"] == ["ok"]
    health = json.loads(str(agent.model.prompts[-1][-1].content))
    assert health["dashboard_id"] == 3  # the page's dashboard: the same builder as a real call
    final = events[-2]
    assert final["type"] == "message"
    assert final["text"].startswith("Дашборд 3 в порядке.")
    assert not any(mark in _shown(events) for mark in RAW_MARKS), _shown(events)


async def test_a_write_written_as_text_gets_the_same_card(
    make_agent: Any, plan_server: str
) -> None:
    text = '<tool_call>{"name": "deploy_dashboard", "arguments": {"target_env_id": "prod"}}'
    async with make_agent(_written(text, "Отменено."), tools_base_url=plan_server) as agent:
        _, events = await agent.ask("выкати в prod", dashboard_context("3"))
        analyst = await agent.conversation(Role.analyst)
        await agent.send(analyst, "выкати в prod", dashboard_context("3"), Role.analyst)
        denied = await read_events(agent.client, analyst, agent.auth(Role.analyst))
    assert types(events) == ["run_started", "tool_call", "confirm_required"]
    card = events[-1]
    assert (card["tool"], card["decision"]["level"]) == ("deploy_dashboard", "dangerous")
    # The analyst: the same permission check as a call made through tool calling.
    assert "permission_denied" in types(denied)
    assert not any(mark in _shown(events + denied) for mark in RAW_MARKS[:5])


async def test_an_unusable_written_call_asks_the_model_once_more_in_english(
    make_agent: Any,
) -> None:
    wrong = '```json\n{"name": "dashboard_health", "arguments": {"id": 3}}\n```'

    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage) and "dashboard_health" in str(
            messages[-1].content
        ):
            return AIMessage(content='{"name": "get_health_summary", "arguments": {}}')
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content="Всё в порядке.")
        return AIMessage(content=wrong)

    async with make_agent(script) as agent:
        _, events = await agent.ask(
            "как дела у этого дашборда?", dashboard_context("3"), Role.analyst
        )
    note = str(agent.model.prompts[1][-1].content)
    assert "`dashboard_health` is not an offered tool" in note
    assert "get_health_summary" in note  # what it could have called
    assert len(agent.model.prompts) == 3  # asked once more, then the result came back
    assert [e["tool"] for e in events if e["type"] == "tool_call"] == ["get_health_summary"]
    assert events[-2]["text"].startswith("Всё в порядке.")
    assert not any(mark in _shown(events) for mark in RAW_MARKS), _shown(events)


async def test_a_model_that_writes_unusable_calls_twice_gets_a_plain_sentence(
    make_agent: Any,
) -> None:
    wrong = '<tool_call>{"name": "get_health_summary", "arguments": {"dashboard_id": "три"}}'
    async with make_agent(lambda messages, offered: AIMessage(content=wrong)) as agent:
        _, events = await agent.ask(
            "как дела у этого дашборда?", dashboard_context("3"), Role.analyst
        )
    assert "invalid arguments" in str(agent.model.prompts[1][-1].content)
    assert len(agent.model.prompts) == 2  # once more, and no more
    assert types(events) == ["run_started", "message", "done"]
    assert events[1]["text"].startswith(texts.MODEL_REPLY_UNUSABLE)
    assert texts.NOTHING_CHANGED in events[1]["text"]
    assert not any(mark in _shown(events) for mark in RAW_MARKS), _shown(events)


async def test_a_local_model_writing_tool_call_tags_through_the_openai_client(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    """As Qwen2.5 served by llama.cpp without its tool-call parser answers: tags in content."""

    async with chat_through_openai_client(tagged_health_call, settings, fake_superset) as (
        client,
        llm,
    ):
        question = "как дела у этого дашборда?"
        events = await ask(client, auth(Role.analyst), question, dashboard_context("3"))
    assert [e["tool"] for e in events if e["type"] == "tool_call"] == ["get_health_summary"]
    second = llm.requests[1]["messages"]
    # The model's next request carries the call as a real call, with its result.
    assert second[-2]["tool_calls"][0]["function"]["name"] == "get_health_summary"
    assert second[-1]["role"] == "tool"
    messages = [e["text"] for e in events if e["type"] == "message"]
    assert messages[-1].startswith("Дашборд 3 в порядке.")
    assert not any("<tool_call>" in text for text in messages)


# -- the recogniser ---------------------------------------------------------------------------

ARGS = {name: tool.args_model for name, tool in CATALOGUE.items()}


def test_a_quoted_record_is_not_a_call() -> None:
    assert read_calls('{"name": "Sales", "id": 3, "owner": "anna"}') is None
    assert read_calls("Дашборд «Продажи» в порядке.") is None
    assert read_calls('```json\n{"rows": [1, 2]}\n```') is None


def test_problems_name_what_is_wrong() -> None:
    written = read_calls('{"name": "search_dashboards", "arguments": {"query": 5}}')
    assert written is not None
    said = problems(written, ["search_dashboards"], ARGS)
    assert said
    assert "invalid arguments" in said[0]
    assert "query" in said[0]
    ok = read_calls('{"name": "search_dashboards", "arguments": {"query": "энерг"}}')
    assert ok is not None
    assert problems(ok, ["search_dashboards"], ARGS) == []
    broken = read_calls('<tool_call>{"name": "search_dashboards", "arguments": {')
    assert broken is not None
    assert problems(broken, ["search_dashboards"], ARGS) == [
        "`search_dashboards`: it is not valid JSON"
    ]


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["name", "arguments", "parameters", "function", "args", "type", "x"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


# 300: model text is cheap to parse; enough to hit the JSON-ish shapes the strategy builds.
@settings(max_examples=300, deadline=None)
@given(
    text=st.text(max_size=300)
    | JSONISH.map(lambda value: json.dumps(value, ensure_ascii=False))
    | st.tuples(st.sampled_from(["```json\n", "<tool_call>", "<tools>", ""]), JSONISH).map(
        lambda pair: pair[0] + json.dumps(pair[1])
    )
)
def test_the_recogniser_never_raises(text: str) -> None:
    written = read_calls(text)
    if written is not None:
        assert written.calls
        assert all(isinstance(call.name, str) for call in written.calls)
        problems(written, sorted(CATALOGUE), ARGS)


def test_a_stream_shows_the_words_before_a_call_and_holds_the_rest() -> None:
    assert call_may_start("Сейчас посмотрю.") is None
    assert call_may_start('  {"name": "x"') == 0
    text = "Сейчас посмотрю.\n```json\n{"
    assert call_may_start(text) == text.index("```")
    assert call_may_start("Сейчас <too") == len("Сейчас ")  # may grow into <tool_call>
    assert call_may_start("") == 0


# 200: the stream guard sees any prefix; plain text up to 200 characters covers its branches.
@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_the_stream_guard_never_raises(text: str) -> None:
    at = call_may_start(text)
    assert at is None or 0 <= at <= len(text)
