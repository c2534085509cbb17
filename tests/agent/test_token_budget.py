"""A token budget per person (issue 39 §3): every model call counted against the person it acts
for, a message over the day's budget refused with 429 in words, nobody else touched.

Over real HTTP with the scripted model; the model's replies carry the usage a provider reports,
or none (then the tokenizer's estimate counts). The day is the runtime's clock, moved by hand.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from sqlalchemy import select

from sstools.agent.run.budget import TokenLimits, seconds_to_next_day
from sstools.agent.tools import CATALOGUE
from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.llm.usage import estimated_tokens
from sstools.storage import llm_usage
from sstools.storage.models import ConversationMessage, LlmUsage, User
from sstools.testing import LiveServer, Script, answer, call_tool
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.agent.cards import DELETE, HandClock, delete_sales_card
from tests.agent.conftest import Agent, dashboard_context
from tests.conftest import AuthHeaders, second_engineer
from tests.openai_server import chat_through_openai_client
from tests.support import ask, read_events, types

# A day's last minute: the 429 says one minute is left, and the next day is two minutes on.
LATE = datetime(2026, 12, 7, 23, 59, tzinfo=UTC)


def reporting(script: Script, input_tokens: int, output_tokens: int) -> Script:
    """``script``, each reply carrying the usage a provider reports with it."""

    def reply(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        said = script(messages, offered)
        said.usage_metadata = {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "total_tokens": input_tokens + output_tokens,
        }
        return said

    return reply


def health_then_answer(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    """Two model calls in one turn: the dashboard's summary, then an answer."""
    if isinstance(messages[-1], ToolMessage):
        return AIMessage(content="Дашборд в порядке.")
    return AIMessage(
        content="", tool_calls=[{"name": "get_health_summary", "args": {}, "id": "call_1"}]
    )


async def _talk(agent: Agent, headers: dict[str, str], text: str = "как он?") -> httpx.Response:
    """A new conversation of ``headers``' person, and ``text`` sent in it; once accepted, its
    run is read to its end."""
    created = await agent.client.post("/api/agent/conversations", headers=headers)
    assert created.status_code == 201
    cid = created.json()["id"]
    sent = await agent.client.post(
        f"/api/agent/conversations/{cid}/messages",
        json={"text": text, "uicontext": dashboard_context()},
        headers=headers,
    )
    if sent.status_code == 202:
        events = await read_events(agent.client, cid, headers)
        assert events[-1]["type"] == "done", events
        await agent.idle(cid)
    return sent


async def _use(agent: Agent, username: str) -> list[LlmUsage]:
    async with agent.app.state.services.sessions() as session:
        uid = await session.scalar(select(User.uid).where(User.username == username))
        rows = await session.scalars(select(LlmUsage).where(LlmUsage.user_uid == uid))
        return list(rows)


def _on_a_hand_clock(agent: Agent, moment: datetime) -> HandClock:
    clock = HandClock(now=moment)
    agent.app.state.agent.clock = clock
    return clock


async def test_over_the_budget_a_person_gets_429_in_words_while_another_is_served(
    make_agent: Any, settings: Settings
) -> None:
    script = reporting(answer("Всё в порядке."), input_tokens=600, output_tokens=100)
    async with make_agent(script, llm_tokens_per_user_day=500) as agent:
        _on_a_hand_clock(agent, LATE)
        alice = agent.auth(Role.engineer)
        bob = await second_engineer(settings)
        assert (await _talk(agent, alice)).status_code == 202  # 0 of 500 used: served
        calls = len(agent.model.prompts)
        refused = await _talk(agent, alice)
        async with agent.app.state.services.sessions() as session:
            asked = select(ConversationMessage.text).where(ConversationMessage.role == "user")
            stored = list(await session.scalars(asked))
        served = await _talk(agent, bob)
        alice_use, bob_use = await _use(agent, "engineer"), await _use(agent, "engineer2")
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "60"  # to 00:00 UTC
    assert refused.json()["detail"] == (
        "Дневной лимит токенов исчерпан: использовано 700 из 500. Лимит обновится через "
        "1 мин (в 00:00 UTC); до тех пор агент не примет новых сообщений от вас — "
        "подтверждать и отклонять карточки можно"
    )
    assert served.status_code == 202
    # Refused before any run: the message is not stored, and no model read it.
    assert stored == ["как он?"]  # alice's first only
    assert len(agent.model.prompts) == calls + 1
    # The provider's count, nothing estimated; the day is the runtime's clock's.
    assert [(u.day, u.tokens, u.estimated_tokens, u.calls) for u in alice_use] == [
        (LATE.date(), 700, 0, 1)
    ]
    assert [(u.tokens, u.calls) for u in bob_use] == [(700, 1)]


async def test_with_no_usage_reported_the_tokenizer_s_estimate_counts(make_agent: Any) -> None:
    async with make_agent(answer("Всё в порядке.")) as agent:
        assert (await _talk(agent, agent.auth(Role.engineer))).status_code == 202
        (use,) = await _use(agent, "engineer")
    prompt, offered = agent.model.prompts[0], agent.model.offered[0]
    tools = [CATALOGUE[name].schema() for name in offered]
    expected = estimated_tokens(prompt, tools, AIMessage(content="Всё в порядке."))
    assert expected > 500  # the system prompt and the tool schemas are most of it
    assert (use.tokens, use.estimated_tokens, use.calls) == (expected, expected, 1)


async def test_a_turn_that_crosses_the_budget_midway_finishes_and_the_next_waits(
    make_agent: Any,
) -> None:
    script = reporting(health_then_answer, input_tokens=700, output_tokens=100)
    async with make_agent(script, llm_tokens_per_user_day=1000) as agent:
        alice = agent.auth(Role.engineer)
        created = await agent.client.post("/api/agent/conversations", headers=alice)
        cid = created.json()["id"]
        await agent.send(cid, "как он?", dashboard_context())
        events = await read_events(agent.client, cid, alice)
        await agent.idle(cid)
        (use,) = await _use(agent, "engineer")
        refused = await agent.send(cid, "а теперь?", dashboard_context())
    # Over the budget after the first call (800 of 1000, then 1600): the turn ran to its answer.
    assert types(events) == ["run_started", "tool_call", "tool_result", "message", "done"]
    assert events[-2]["text"].startswith("Дашборд в порядке.")
    assert (use.tokens, use.calls) == (1600, 2)
    assert refused.status_code == 429
    assert "использовано 1\u00a0600 из 1\u00a0000" in refused.json()["detail"]


async def test_the_next_utc_day_the_person_is_served_again(make_agent: Any) -> None:
    script = reporting(answer("Всё в порядке."), input_tokens=900, output_tokens=100)
    async with make_agent(script, llm_tokens_per_user_day=1000) as agent:
        clock = _on_a_hand_clock(agent, LATE - timedelta(hours=3, minutes=15))
        alice = agent.auth(Role.engineer)
        assert (await _talk(agent, alice)).status_code == 202
        refused = await _talk(agent, alice)
        clock.now = LATE + timedelta(minutes=2)
        again = await _talk(agent, alice)
        use = await _use(agent, "engineer")
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == str(3 * 3600 + 16 * 60)
    assert "Лимит обновится через 3 ч 16 мин" in refused.json()["detail"]
    assert again.status_code == 202
    assert sorted((u.day, u.tokens) for u in use) == [
        (date(2026, 12, 7), 1000),
        (date(2026, 12, 8), 1000),
    ]


async def test_a_role_s_own_budget_overrides_everyone_s(make_agent: Any) -> None:
    script = reporting(answer("Всё в порядке."), input_tokens=150, output_tokens=50)
    per_role = {"analyst": 100, "admin": None}
    async with make_agent(
        script, llm_tokens_per_user_day=300, llm_tokens_per_role_day=per_role
    ) as agent:
        spent: dict[Role, list[int]] = {role: [] for role in Role}
        for _ in range(3):
            for role in Role:
                spent[role].append((await _talk(agent, agent.auth(role))).status_code)
    assert spent[Role.analyst] == [202, 429, 429]  # its own 100
    assert spent[Role.engineer] == [202, 202, 429]  # everyone's 300
    assert spent[Role.admin] == [202, 202, 202]  # null: no budget


async def test_approving_a_card_over_the_budget_is_never_refused(make_agent: Any) -> None:
    script = reporting(call_tool("superset_execute_sql", DELETE, "Удалено."), 900, 100)
    async with make_agent(script, llm_tokens_per_user_day=500) as agent:
        cid, card = await delete_sales_card(agent)
        decided = await agent.decide(cid, card["confirmation_id"], "approve")
        events = await agent.events_after(cid, card)
        (use,) = await _use(agent, "engineer")
    assert decided.status_code == 200
    assert types(events) == ["run_started", "tool_result", "message", "done"]
    assert (use.tokens, use.calls) == (2000, 2)  # the resumed run's call counted too


async def test_the_audit_page_s_query_lists_each_person_s_use_by_day(
    make_agent: Any, settings: Settings
) -> None:
    script = reporting(answer("Всё в порядке."), input_tokens=60, output_tokens=40)
    async with make_agent(script) as agent:
        clock = _on_a_hand_clock(agent, LATE)
        await _talk(agent, agent.auth(Role.engineer))
        await _talk(agent, agent.auth(Role.engineer))
        await _talk(agent, await second_engineer(settings))
        clock.now = LATE + timedelta(minutes=2)
        await _talk(agent, agent.auth(Role.analyst))
        async with agent.app.state.services.sessions() as session:
            rows = await llm_usage.use_per_person(session, LATE.date(), date(2026, 12, 8))
            today = await llm_usage.use_per_person(session, LATE.date(), LATE.date())
    assert [(r.day.day, r.username, r.tokens, r.calls) for r in rows] == [
        (8, "analyst", 100, 1),
        (7, "engineer", 200, 2),
        (7, "engineer2", 100, 1),
    ]
    assert [r.username for r in today] == ["engineer", "engineer2"]


async def test_the_configured_model_asks_for_usage_and_its_report_counts(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        return {"text": "Дашборд в порядке.", "usage": (80, 40)}

    budgeted = settings.model_copy(update={"llm_tokens_per_user_day": 100})
    async with chat_through_openai_client(script, budgeted, fake_superset) as (client, llm):
        headers = auth(Role.analyst)
        events = await ask(client, headers, "как он?", dashboard_context("3"))
        cid = await _idle_conversation(client, headers)
        refused = await client.post(
            f"/api/agent/conversations/{cid}/messages", json={"text": "ещё"}, headers=headers
        )
    assert events[-1]["type"] == "done"
    assert llm.requests[0]["stream_options"] == {"include_usage": True}
    assert len(llm.requests) == 1
    assert refused.status_code == 429
    assert "использовано 120 из 100" in refused.json()["detail"]


async def _idle_conversation(client: httpx.AsyncClient, headers: dict[str, str]) -> str:
    created = await client.post("/api/agent/conversations", headers=headers)
    conversation_id: str = created.json()["id"]
    return conversation_id


async def test_the_offline_planner_spends_nothing_and_is_never_refused(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    offline = settings.model_copy(update={"llm_tokens_per_user_day": 1})
    app = create_app(offline, superset_transport=RoutingTransport(fake_superset))
    headers = auth(Role.engineer)
    with LiveServer(app) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
            first = await ask(client, headers, "привет", dashboard_context("3"))
            second = await ask(client, headers, "спасибо", dashboard_context("3"))
        async with app.state.services.sessions() as session:
            counted = list(await session.scalars(select(LlmUsage)))
    assert (first[-1]["type"], second[-1]["type"]) == ("done", "done")
    assert counted == []


def test_bad_budgets_stop_the_start_naming_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable, value, said in (
        ("SSTOOLS_LLM_TOKENS_PER_USER_DAY", "0", "greater than 0"),
        ("SSTOOLS_LLM_TOKENS_PER_USER_DAY", "много", "valid integer"),
        ("SSTOOLS_LLM_TOKENS_PER_ROLE_DAY", '{"guest": 100}', "'analyst', 'engineer' or 'admin'"),
        ("SSTOOLS_LLM_TOKENS_PER_ROLE_DAY", '{"analyst": -5}', "greater than 0"),
        ("SSTOOLS_LLM_TOKENS_PER_ROLE_DAY", "analyst=5", "llm_tokens_per_role_day"),
    ):
        with monkeypatch.context() as env:
            env.setenv(variable, value)
            with pytest.raises(ValueError, match="llm_tokens_per_") as refused:
                Settings(_env_file=None)
        assert said in str(refused.value), (variable, value, str(refused.value))
    monkeypatch.setenv("SSTOOLS_LLM_TOKENS_PER_ROLE_DAY", '{"analyst": 20000, "admin": null}')
    limits = TokenLimits.of(Settings(_env_file=None, llm_tokens_per_user_day=50_000))
    assert [limits.for_role(role) for role in Role] == [20_000, 50_000, None]
    monkeypatch.delenv("SSTOOLS_LLM_TOKENS_PER_ROLE_DAY")
    assert TokenLimits.of(Settings(_env_file=None)).for_role(Role.analyst) is None  # the default


def test_the_wait_is_to_the_next_utc_midnight_whatever_the_offset() -> None:
    moscow = timezone(timedelta(hours=3))
    assert seconds_to_next_day(datetime(2026, 12, 8, 2, 30, tzinfo=moscow)) == 1800  # 23:30 UTC
    assert seconds_to_next_day(datetime(2026, 12, 7, 0, 0, tzinfo=UTC)) == 86_400
    assert seconds_to_next_day(datetime(2026, 12, 7, 23, 59, 59, 500_000, tzinfo=UTC)) == 1
