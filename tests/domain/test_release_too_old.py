"""An environment on a Superset older than 5.0 (its lists carry no UUIDs) is refused in words:
a plan into it is a 409 naming the environment and its release, never a 500, and nothing runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.conftest import AuthHeaders, app_client
from tests.rig import REPORT_ID, report_superset, settings_for_places


@pytest.fixture
async def settings(tmp_path: Path, fake_superset: FakeSuperset) -> Settings:
    places = [
        ("ss-dev", "ss-dev", "dev", "http://superset.test"),
        ("prod", "prod", "prod", "http://prod.superset.test"),
    ]
    return await settings_for_places(tmp_path, fake_superset, places)


async def test_a_plan_into_superset_4_1_is_refused_by_name(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    old = report_superset()
    old.version = "4.1.2"
    transport = RoutingTransport(report_superset(), others={"prod.superset.test": old})
    async with app_client(settings, transport) as client:
        answer = await client.post(
            "/api/deploy/plan",
            json={
                "dashboard_ids": [REPORT_ID],
                "source": {"env_id": "ss-dev"},
                "target_env_id": "prod",
            },
            headers=auth(Role.engineer),
        )
        listed = await client.get("/api/environments", headers=auth(Role.analyst))
    assert answer.status_code == 409, answer.text
    assert answer.json()["env_id"] == "prod"
    words = answer.json()["detail"]
    assert "'prod'" in words
    assert "Superset 4.1.2" in words
    assert "обновите его до 5.0 или новее" in words
    writes = [call for call in old.calls if call[0] != "GET" and "/security/" not in call[1]]
    assert writes == []
    assert {env["id"]: env["superset_version"] for env in listed.json()}["prod"] == "4.1.2"
