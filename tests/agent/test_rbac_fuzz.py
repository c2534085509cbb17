"""SC-005 and SC-006 with hypothesis, over real HTTP against a live app."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator
from typing import Any, NamedTuple

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from sqlalchemy import select

from sstools.agent.context import parse_uicontext
from sstools.agent.tools import CATALOGUE, ToolKind
from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.storage.models import AuditEntry
from sstools.testing import LiveServer, ScriptedChatModel
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.agent.conftest import dashboard_context, dataset_context
from tests.conftest import AuthHeaders
from tests.support import read_events_sync

WRITES = sorted(name for name, tool in CATALOGUE.items() if tool.kind is ToolKind.write)


def _calls_from_message(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    """Calls every (name, args) pair listed as JSON in the person's message."""
    if isinstance(messages[-1], ToolMessage):
        return AIMessage(content="готово")
    human = next(m for m in reversed(messages) if isinstance(m, HumanMessage))
    calls = json.loads(str(human.content))
    return AIMessage(
        content="",
        tool_calls=[
            {"name": name, "args": args, "id": f"call_{i}"} for i, (name, args) in enumerate(calls)
        ],
    )


class LiveAgent(NamedTuple):
    client: httpx.Client
    app: Any
    model: ScriptedChatModel

    def __repr__(self) -> str:  # hypothesis prints fixture values; the model's log is large
        return f"LiveAgent({self.client.base_url})"


@pytest.fixture
def live_agent(settings: Settings, fake_superset: FakeSuperset) -> Iterator[LiveAgent]:
    model = ScriptedChatModel(script=_calls_from_message)
    app = create_app(settings, superset_transport=RoutingTransport(fake_superset), chat_model=model)
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        yield LiveAgent(client, app, model)


def _look_alikes(name: str) -> list[str]:
    cyrillic = name.replace("o", "о").replace("a", "а").replace("e", "е")
    fullwidth = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in name)
    return [
        name.upper(),
        name.title(),
        f" {name}",
        f"{name} ",
        name.replace("_", "-"),
        cyrillic,
        fullwidth,
        unicodedata.normalize("NFKD", fullwidth),
        f"{name}\u200b",
        name + "s",
        "functions." + name,
    ]


LOOK_ALIKES = [alike for name in WRITES for alike in _look_alikes(name)]
_names = st.one_of(st.sampled_from(WRITES), st.sampled_from(LOOK_ALIKES), st.text(max_size=40))
_args: st.SearchStrategy[dict[str, Any]] = st.one_of(
    st.just({}),
    st.just({"target_env_id": "prod"}),
    st.just({"name": "feature/x"}),
    st.just({"sql": "delete from t", "database_id": 1}),
    st.dictionaries(st.text(max_size=10), st.integers() | st.text(max_size=10), max_size=3),
)


# 30: each example is a full HTTP turn through the app; role × tool pairs are few.
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    # At most 4 and the SQL below: one model reply runs at most 5 calls (agent_calls_per_reply).
    st.lists(st.tuples(_names, _args), min_size=1, max_size=4),
    st.sampled_from([dashboard_context(), dataset_context(env_id="prod"), None]),
)
def test_agtl_fr_005_sc_005_analyst_never_reaches_a_write(
    live_agent: LiveAgent,
    fake_superset: FakeSuperset,
    auth: AuthHeaders,
    calls: list[tuple[str, dict[str, Any]]],
    context: dict[str, Any] | None,
) -> None:
    client, _, model = live_agent
    headers = auth(Role.analyst)
    calls = [*calls, ("superset_execute_sql", {"sql": "drop table t", "database_id": 1})]
    cid = client.post("/api/agent/conversations", headers=headers).json()["id"]
    sent = client.post(
        f"/api/agent/conversations/{cid}/messages",
        headers=headers,
        json={"text": json.dumps(calls, ensure_ascii=False), "uicontext": context},
    )
    assert sent.status_code == 202
    events = read_events_sync(client, cid, headers)
    assert events[-1]["type"] == "done"
    assert "confirm_required" not in [e["type"] for e in events]
    assert not set(WRITES) & {name for offered in model.offered for name in offered}
    denied = [e for e in events if e["type"] == "permission_denied"]
    assert all(e["required_roles"] for e in denied)
    assert denied
    assert fake_superset.executed_sql == []


def test_agtl_fr_005_sc_005_no_write_tool_call_was_audited(
    live_agent: LiveAgent, auth: AuthHeaders
) -> None:
    client, app, _ = live_agent
    headers = auth(Role.analyst)
    calls = [[name, {"target_env_id": "prod", "name": "x", "message": "m"}] for name in WRITES]
    denied: list[str] = []
    for start in range(0, len(calls), 5):  # one model reply runs at most 5 calls
        cid = client.post("/api/agent/conversations", headers=headers).json()["id"]
        client.post(
            f"/api/agent/conversations/{cid}/messages",
            headers=headers,
            json={"text": json.dumps(calls[start : start + 5]), "uicontext": dashboard_context()},
        )
        events = read_events_sync(client, cid, headers)
        denied += [e["tool"] for e in events if e["type"] == "permission_denied"]
    assert sorted(denied) == WRITES

    import asyncio

    async def tool_calls() -> list[AuditEntry]:
        async with app.state.services.sessions() as session:
            return list(
                await session.scalars(select(AuditEntry).where(AuditEntry.action == "tool_call"))
            )

    assert asyncio.run(tool_calls()) == []


_bad_values = st.one_of(st.none(), st.integers(), st.text(max_size=600), st.booleans())
_malformed = st.one_of(
    st.builds(
        lambda k, v: {**dashboard_context(), k: v},
        st.sampled_from(["objectType", "objectId", "envId", "route", "contextVersion"]),
        st.text(min_size=1, max_size=30).filter(lambda t: not t.isascii() or not t.isdigit()),
    ),
    st.builds(
        lambda name: {**dashboard_context(), "objectName": name},
        st.text(min_size=257, max_size=400),
    ),
    st.builds(
        lambda k, v: {**dashboard_context(), k: v},
        st.text(min_size=1, max_size=12).filter(lambda k: k not in dashboard_context()),
        _bad_values,
    ),
    st.just({**dashboard_context(), "route": "/" + "x" * 5000}),
)


def _audited_context_rejections(app: Any) -> list[AuditEntry]:
    import asyncio

    async def rows() -> list[AuditEntry]:
        async with app.state.services.sessions() as session:
            query = select(AuditEntry).where(AuditEntry.action == "context_rejected")
            return list(await session.scalars(query.order_by(AuditEntry.id)))

    return asyncio.run(rows())


def _has_int_beyond_64_bits(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_has_int_beyond_64_bits(item) for item in value.values())
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**63


# 60: each example is an HTTP request through the app; the malformed shapes are few kinds.
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(_malformed)
def test_sc_006_malformed_contexts_are_422_audited_and_never_prompted(
    live_agent: LiveAgent,
    auth: AuthHeaders,
    uicontext: dict[str, Any],
) -> None:
    client, app, model = live_agent
    headers = auth(Role.engineer)
    prompts_before = len(model.prompts)
    audited_before = len(_audited_context_rejections(app))
    cid = client.post("/api/agent/conversations", headers=headers).json()["id"]
    response = client.post(
        f"/api/agent/conversations/{cid}/messages",
        headers=headers,
        json={"text": "[]", "uicontext": uicontext},
    )
    if response.status_code == 202:
        # Only a context the server's own parser accepts may reach the model, and then it does.
        parse_uicontext(uicontext, set(app.state.services.environments))
        read_events_sync(client, cid, headers)
        assert len(model.prompts) > prompts_before
        return
    assert response.status_code == 422
    loc = response.json()["detail"][0]["loc"]
    assert len(model.prompts) == prompts_before
    history = client.get(f"/api/agent/conversations/{cid}", headers=headers).json()
    assert history["messages"] == []
    if loc == ["body"]:
        # JSON our storage cannot hold is refused for the whole body, before the route (issue 7).
        assert _has_int_beyond_64_bits(uicontext)
        return
    assert loc[:2] == ["body", "uicontext"]
    audited = _audited_context_rejections(app)[audited_before:]
    assert [(entry.username, entry.detail["field"]) for entry in audited] == [
        ("engineer", ".".join(loc[1:]))
    ]


def test_issue7_traversal_in_tool_arguments_never_reaches_another_endpoint(
    live_agent: LiveAgent, auth: AuthHeaders
) -> None:
    # Schema and task id aimed at GET /api/auth/me (the suffix cut by "#"): before the fix the
    # model read the user's own account back, audited as a database exploration.
    client, app, model = live_agent
    headers = auth(Role.engineer)
    calls = [
        [
            "superset_explore_database",
            {"database_id": 1, "schema_name": "../../../../api/auth/me#"},
        ],
        ["get_task_status", {"task_id": "../auth/me#"}],
        ["superset_explore_database", {"database_id": 1, "schema_name": "..%2F.."}],
    ]
    cid = client.post("/api/agent/conversations", headers=headers).json()["id"]
    client.post(
        f"/api/agent/conversations/{cid}/messages",
        headers=headers,
        json={"text": json.dumps(calls), "uicontext": dataset_context(env_id="staging")},
    )
    events = read_events_sync(client, cid, headers)
    results = [e for e in events if e["type"] == "tool_result"]
    assert [e["outcome"] for e in results][:2] == ["refused", "refused"]
    assert "schema_name" in results[0]["message"]
    assert "task_id" in results[1]["message"]
    tool_messages = [m for m in model.prompts[-1] if isinstance(m, ToolMessage)]
    assert len(tool_messages) == 3
    assert not any('"role"' in str(m.content) for m in tool_messages)  # /api/auth/me's answer

    import asyncio

    async def tool_calls() -> list[AuditEntry]:
        async with app.state.services.sessions() as session:
            return list(
                await session.scalars(select(AuditEntry).where(AuditEntry.action == "tool_call"))
            )

    # Only the encoded call ran, and its row names the tool and the environment it ran in.
    assert [(e.detail["tool"], e.env_id) for e in asyncio.run(tool_calls())] == [
        ("superset_explore_database", "staging")
    ]
