"""A call written as text is never streamed to the person as raw JSON token by token."""

from __future__ import annotations

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.conftest import dashboard_context
from tests.conftest import AuthHeaders
from tests.openai_server import chat_through_openai_client, tagged_health_call
from tests.support import ask


async def test_a_text_call_is_not_streamed_raw(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    async with chat_through_openai_client(tagged_health_call, settings, fake_superset) as (
        client,
        _llm,
    ):
        question = "как дела у этого дашборда?"
        events = await ask(client, auth(Role.analyst), question, dashboard_context("3"))
    streamed = "".join(e["text"] for e in events if e["type"] == "token")
    assert "Дашборд 3 в порядке." in streamed  # the answer itself still streams
    assert "get_health_summary" not in streamed
