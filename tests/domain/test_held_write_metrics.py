"""A write the domain API held for a second person is counted on ``GET /metrics`` by its stage:
asked once when held, denied once when the second person declines it (through the approvals
page's route, which relays the decision to the domain API: still once), expired once however
often it is read after its expiry."""

from __future__ import annotations

from datetime import timedelta

import httpx
from prometheus_client.parser import text_string_to_metric_families

from sstools import clock
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing.fake_superset import FakeSuperset
from tests.conftest import AuthHeaders, second_engineer
from tests.domain.test_two_people import _held_deploy, prod, settings, source
from tests.rig import served_with_tasks

__all__ = ["prod", "settings", "source"]  # the fixtures, shared with the two-people tests

COUNT = "sstools_approvals_total"


async def _count(client: httpx.AsyncClient, name: str, **labels: str) -> float:
    text = (await client.get("/metrics")).text
    wanted = frozenset(labels.items())
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name and frozenset(sample.labels.items()) == wanted
    )


async def test_a_held_prod_deploy_denied_by_the_second_person_counts_once_for_prod(
    settings: Settings,
    source: FakeSuperset,
    prod: tuple[FakeSuperset, str],
    auth: AuthHeaders,
) -> None:
    async with served_with_tasks(settings, source) as (_, client):
        asked = await _count(client, COUNT, stage="prod", decision="asked")
        denied = await _count(client, COUNT, stage="prod", decision="denied")
        timed = await _count(client, "sstools_approval_decision_seconds_count", stage="prod")
        request = await _held_deploy(client, auth(Role.engineer))
        second = await second_engineer(settings)
        answer = await client.post(
            f"/api/approvals/{request['id']}", json={"decision": "deny"}, headers=second
        )
        assert answer.status_code == 200, answer.text
        assert await _count(client, COUNT, stage="prod", decision="asked") == asked + 1
        assert await _count(client, COUNT, stage="prod", decision="denied") == denied + 1
        after = await _count(client, "sstools_approval_decision_seconds_count", stage="prod")
        assert after == timed + 1


async def test_a_held_prod_deploy_that_expires_counts_once_as_expired(
    settings: Settings,
    source: FakeSuperset,
    prod: tuple[FakeSuperset, str],
    auth: AuthHeaders,
) -> None:
    engineer = auth(Role.engineer)
    async with served_with_tasks(settings, source) as (_, client):
        request = await _held_deploy(client, engineer)
        expired = await _count(client, COUNT, stage="prod", decision="expired")
        later = clock.now() + timedelta(seconds=settings.second_approval_ttl_s + 60)
        with clock.moved_to(later):
            url = f"/api/write-requests/{request['id']}"
            for _ in range(2):  # the second read finds it expired already: not counted again
                read = await client.get(url, headers=engineer)
                assert read.json()["status"] == "expired", read.text
            assert await _count(client, COUNT, stage="prod", decision="expired") == expired + 1
