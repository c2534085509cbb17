"""The card tests' set-up, written once: an agent asked on a page for a write its model calls,
up to the card it stops at — every sale deleted on a dataset's page, or a deploy's or a
migration's call on a dashboard's page against the deploy server — and the runtime's clock put
in the test's hand.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sstools.auth.roles import Role
from sstools.testing import call_tool
from tests.agent.conftest import Agent, dashboard_context, dataset_context

# The model's call that deletes every sale: a write, so always a card first.
DELETE = {"sql": "delete from sales where 1=1", "database_id": 1}


async def delete_sales_card(
    agent: Agent, env_id: str = "prod", role: Role = Role.engineer
) -> tuple[str, dict[str, Any]]:
    """«удали продажи» asked by ``role`` on a dataset page of ``env_id``, the model calling
    ``DELETE``: the conversation, and the card it stopped at."""
    cid, events = await agent.ask("удали продажи", dataset_context(env_id=env_id), role)
    assert events[-1]["type"] == "confirm_required", events
    return cid, events[-1]


@dataclass
class HandClock:
    """The runtime's clock, moved by hand: expiry without sleeping."""

    now: datetime = field(default_factory=lambda: datetime.now(UTC))

    def __call__(self) -> datetime:
        return self.now


async def delete_sales_card_on_a_hand_clock(
    agent: Agent,
) -> tuple[HandClock, str, dict[str, Any]]:
    """The runtime's clock put in the test's hand, then :func:`delete_sales_card` on prod:
    (the clock, the conversation, the card)."""
    clock = HandClock()
    agent.app.state.agent.clock = clock
    cid, card = await delete_sales_card(agent)
    return clock, cid, card


@asynccontextmanager
async def asked_on_a_dashboard(
    make_agent: Callable[..., Any],
    url: str,
    call: tuple[str, dict[str, Any]],
    text: str,
    **settings: Any,
) -> AsyncIterator[tuple[Agent, str, list[dict[str, Any]]]]:
    """An agent whose model makes ``call`` (a tool and its arguments), its tools on the deploy
    server at ``url`` and ``settings`` over the app's, asked ``text`` on dashboard 10's page:
    (the agent, the conversation, the events it answered with — a card last, where one is
    asked)."""
    tool, args = call
    async with make_agent(call_tool(tool, args), tools_base_url=url, **settings) as agent:
        cid, events = await agent.ask(text, dashboard_context())
        yield agent, cid, events
