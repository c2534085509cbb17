"""Approvals measured on ``GET /metrics``: a prod card approved by two people counts once as
``first_approved`` and once as ``approved`` under ``stage="prod"``, with the time it took in the
histogram; a second person's denial counts as ``denied``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from sstools.config import Settings
from sstools.testing import call_tool
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.cards import DELETE, HandClock, delete_sales_card_on_a_hand_clock
from tests.agent.test_second_approval import _approve, _deny, _second_engineer

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
COUNT = "sstools_approvals_total"
SECONDS = "sstools_approval_decision_seconds"


async def _scrape(client: httpx.AsyncClient) -> Samples:
    response = await client.get("/metrics")
    assert response.status_code == 200, response.text
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def _moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    key = (name, frozenset(labels.items()))
    return after.get(key, 0.0) - before.get(key, 0.0)


async def _waiting_for_the_second(
    agent: Any, settings: Settings
) -> tuple[dict[str, str], Samples, HandClock, dict[str, Any]]:
    """A second engineer, the metrics before, and a prod card on a hand clock that its requester
    approved: (the second's headers, the metrics, the clock, the card)."""
    second = await _second_engineer(agent, settings)
    before = await _scrape(agent.client)
    clock, cid, card = await delete_sales_card_on_a_hand_clock(agent)
    first = await agent.decide(cid, card["confirmation_id"], "approve")
    assert first.json()["status"] == "awaiting_second"
    return second, before, clock, card


async def test_a_prod_card_approved_by_two_people_is_counted_and_timed_for_prod(
    make_agent: Any, fake_superset: FakeSuperset, settings: Settings
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE), approvals_prod=2) as agent:
        second, before, clock, card = await _waiting_for_the_second(agent, settings)
        middle = await _scrape(agent.client)
        clock.now += timedelta(seconds=90)  # the second person comes a minute and a half later
        approved = await _approve(agent, card["confirmation_id"], second)
        assert approved.status_code == 200, approved.text
        again = await _approve(agent, card["confirmation_id"], second)  # decided: not counted
        assert again.status_code == 409
        after = await _scrape(agent.client)
    assert fake_superset.executed_sql == [DELETE["sql"]]
    assert _moved(before, after, COUNT, stage="prod", decision="asked") == 1
    assert _moved(before, middle, COUNT, stage="prod", decision="first_approved") == 1
    assert _moved(before, middle, COUNT, stage="prod", decision="approved") == 0
    assert _moved(middle, after, COUNT, stage="prod", decision="approved") == 1
    assert _moved(before, after, COUNT, stage="prod", decision="first_approved") == 1
    assert _moved(before, after, f"{SECONDS}_count", stage="prod") == 1  # once, at the close
    assert _moved(before, after, f"{SECONDS}_bucket", stage="prod", le="60.0") == 0
    assert _moved(before, after, f"{SECONDS}_bucket", stage="prod", le="120.0") == 1
    assert 60 < _moved(before, after, f"{SECONDS}_sum", stage="prod") <= 120
    assert _moved(before, after, COUNT, stage="dev", decision="approved") == 0


async def test_a_second_persons_denial_of_a_prod_card_counts_as_denied(
    make_agent: Any, fake_superset: FakeSuperset, settings: Settings
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE), approvals_prod=2) as agent:
        second, before, clock, card = await _waiting_for_the_second(agent, settings)
        clock.now += timedelta(seconds=10)
        denied = await _deny(agent, card, second, "не сегодня")
        assert denied.status_code == 200, denied.text
        after = await _scrape(agent.client)
    assert fake_superset.executed_sql == []
    assert _moved(before, after, COUNT, stage="prod", decision="denied") == 1
    assert _moved(before, after, COUNT, stage="prod", decision="approved") == 0
    assert _moved(before, after, f"{SECONDS}_count", stage="prod") == 1
    assert _moved(before, after, f"{SECONDS}_bucket", stage="prod", le="5.0") == 0
    assert _moved(before, after, f"{SECONDS}_bucket", stage="prod", le="15.0") == 1
