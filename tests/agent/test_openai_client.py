"""The real OpenAI-compatible client path (langchain-openai) against a local scripted server."""

from __future__ import annotations

import json
from typing import Any

import httpx

from sstools.agent.context import BLOCK_START
from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing import LiveServer
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.agent.conftest import DASHBOARD_SET, dashboard_context
from tests.conftest import AuthHeaders
from tests.openai_server import chat_through_openai_client, tool_then_text
from tests.support import ask, types


async def test_openai_compatible_model_streams_and_calls_tools(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    script = tool_then_text(
        "get_health_summary", {}, "Дашборд 3 в порядке: владельцы есть, графики работают."
    )
    async with chat_through_openai_client(script, settings, fake_superset) as (client, llm):
        headers = auth(Role.analyst)
        events = await ask(client, headers, "как дела у этого дашборда?", dashboard_context("3"))
    kinds = types(events)
    assert kinds[:3] == ["run_started", "tool_call", "tool_result"]
    assert kinds[-2:] == ["message", "done"]
    assert kinds.count("token") >= 5
    assert events[1]["tool"] == "get_health_summary"
    assert events[2]["outcome"] == "ok"
    streamed = "".join(e["text"] for e in events if e["type"] == "token")
    # The server's own line of what ran follows what the model streamed (never streamed).
    assert events[-2]["text"].startswith(streamed.strip())
    assert events[-2]["text"].startswith("Дашборд 3 в порядке")

    first, second = llm.requests
    assert {tool["function"]["name"] for tool in first["tools"]} <= DASHBOARD_SET - {
        "deploy_dashboard",
        "execute_migration",
        "create_branch",
        "commit_changes",
        "rollback_deploy",
    }
    assert {"get_health_summary", "show_capabilities"} <= {
        tool["function"]["name"] for tool in first["tools"]
    }
    system = first["messages"][0]
    assert system["role"] == "system"
    assert BLOCK_START in system["content"]
    assert first["stream"] is True
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool"
    assert json.loads(tool_message["content"])["dashboard_id"] == 3
    assert llm.authorization == ["Bearer sk-test-secret"] * 2
    # The user's token and the service account's secret never reach the model.
    everything: Any = json.dumps(llm.requests, ensure_ascii=False)
    assert headers["Authorization"].split()[1] not in everything
    assert fake_superset.password not in everything


async def test_unreachable_model_is_an_llm_error_not_a_hang(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    app_settings = settings.model_copy(update={"llm_base_url": "http://127.0.0.1:9/v1"})
    app = create_app(app_settings, superset_transport=RoutingTransport(fake_superset))
    with LiveServer(app) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
            events = await ask(client, auth(Role.analyst), "привет", None, timeout_s=60)
    assert types(events) == ["run_started", "error", "done"]
    assert events[1]["code"] == "llm_error"
    assert events[1]["message"].startswith("модель недоступна")
