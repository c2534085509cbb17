"""A call written as text is never streamed to the person as raw JSON token by token."""

from __future__ import annotations

from typing import Any

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.conftest import dashboard_context
from tests.conftest import AuthHeaders
from tests.openai_server import chat_through_openai_client
from tests.support import read_events


async def test_a_text_call_is_not_streamed_raw(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        if messages[-1]["role"] == "tool":
            return {"text": "Дашборд 3 в порядке."}
        return {
            "text": '<tool_call>\n{"name": "get_health_summary", "arguments": {}}\n</tool_call>'
        }

    async with chat_through_openai_client(script, settings, fake_superset) as (client, _llm):
        headers = auth(Role.analyst)
        cid = (await client.post("/api/agent/conversations", headers=headers)).json()["id"]
        await client.post(
            f"/api/agent/conversations/{cid}/messages",
            headers=headers,
            json={"text": "как дела у этого дашборда?", "uicontext": dashboard_context("3")},
        )
        events = await read_events(client, cid, headers)
    streamed = "".join(e["text"] for e in events if e["type"] == "token")
    assert "Дашборд 3 в порядке." in streamed  # the answer itself still streams
    assert "get_health_summary" not in streamed
