"""The questions the empty /agent page offers (issue 33 §9) are understood with no model: each,
asked by an analyst on its page, is answered by reads alone — no card, no task, no write, no
refusal — in Russian. Through the real graph and HTTP API, the offline planner answering; the
tools talk to :class:`ToolServer`, which records every request."""

from __future__ import annotations

import re
from typing import Any

import pytest

from sstools.agent.offline.planner import OfflinePlanner
from sstools.auth.roles import Role
from sstools.web.strings import SUGGESTIONS
from tests.agent.test_questions_are_read import ToolServer, page_context, tool_server
from tests.support import read_events, types

__all__ = ["tool_server"]  # the fixture, used by name
CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)


def _context(object_type: str | None) -> dict[str, Any]:
    if object_type == "dataset":
        return {
            "contextVersion": 1,
            "envId": "ss-dev",
            "objectType": "dataset",
            "objectId": "3",
            "objectName": "energy_consumption",
            "route": "/datasets/3",
        }
    return page_context(object_type)


@pytest.mark.parametrize(
    ("object_type", "text"),
    [(kind, text) for kind, texts in SUGGESTIONS.items() for text in texts],
)
async def test_each_offered_question_is_answered_by_reads(
    make_agent: Any,
    tool_server: tuple[ToolServer, str],
    object_type: str | None,
    text: str,
) -> None:
    server, url = tool_server
    planner = OfflinePlanner(environment_ids=("ss-dev", "staging", "prod"))
    async with make_agent(planner, tools_base_url=url) as agent:
        cid = await agent.conversation(Role.analyst)
        sent = await agent.send(cid, text, _context(object_type), Role.analyst)
        assert sent.status_code in (200, 201, 202), sent.text
        events = await read_events(agent.client, cid, agent.auth(Role.analyst))
    kinds = types(events)
    assert "confirm_required" not in kinds, events
    assert "permission_denied" not in kinds, events
    assert kinds[-1] == "done", events
    assert "tool_call" in kinds, f"nothing was read for {text!r}: {events}"
    assert all(event.get("task_id") is None for event in events if event["type"] == "tool_result")
    assert server.writes == [], "an offered question sent a write"
    answer = next(event["text"] for event in reversed(events) if event["type"] == "message")
    assert CYRILLIC.search(answer), answer
