"""Two people for prod by every route (issue 32 §2): a write into a stage that needs two people,
asked through the domain API itself, is held as a request (202) and runs once, as its requester,
when a second person with the role approves it; the requester alone never writes. On the real
app and task engine, prod a fake Superset served over HTTP (a task's steps make their own
clients)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.http.auth import SESSION_COOKIE
from sstools.storage.models import AuditEntry
from sstools.testing import LiveServer
from sstools.testing.fake_superset import FakeSuperset
from tests.conftest import AuthHeaders, second_engineer
from tests.planted_secrets import LAYOUT, TARGET_DATASET, TARGET_PARAMS, documents
from tests.rig import FINISHED, REPORT_ID, report_superset, served_with_tasks, settings_for_places
from tests.tasks.support import eventually


def _fake(css: str = "") -> FakeSuperset:
    fake = report_superset()
    fake.dashboard_fields = {**LAYOUT, "css": css}
    return fake


@pytest.fixture
def source() -> FakeSuperset:
    fake = _fake("/* dev */")
    fake.assets = documents({"metric": "count", "viz_type": "bar"}, dict(TARGET_DATASET))
    return fake


@pytest.fixture
def prod() -> Iterator[tuple[FakeSuperset, str]]:
    fake = _fake("/* prod */")
    fake.assets = documents(dict(TARGET_PARAMS), dict(TARGET_DATASET))
    with LiveServer(fake.asgi()) as live:
        yield fake, live.url


@pytest.fixture
async def settings(
    tmp_path: Path, source: FakeSuperset, prod: tuple[FakeSuperset, str]
) -> Settings:
    places = [("ss-dev", "Dev", "dev", "http://superset.test"), ("prod", "Prod", "prod", prod[1])]
    return await settings_for_places(tmp_path, source, places)  # prod needs two people: the default


BODY = {"dashboard_ids": [REPORT_ID], "source": {"env_id": "ss-dev"}, "target_env_id": "prod"}


def _imports(fake: FakeSuperset) -> int:
    """Imports the environment received (a deploy imports what it changes once, in one call)."""
    return sum(
        fake.calls.count(("POST", f"/api/v1/{kind}/import/"))
        for kind in ("assets", "dataset", "chart", "dashboard")
    )


async def _held_deploy(client: httpx.AsyncClient, headers: dict[str, str]) -> dict[str, Any]:
    plan = await client.post("/api/deploy/plan", json=BODY, headers=headers)
    assert plan.status_code == 200, plan.text
    assert plan.json()["dashboards_changed"] == 1
    held = await client.post(
        "/api/deploy", json={**BODY, "digest": plan.json()["digest"]}, headers=headers
    )
    assert held.status_code == 202, held.text
    request: dict[str, Any] = held.json()
    return request


async def _page(client: httpx.AsyncClient, path: str, headers: dict[str, str]) -> str:
    """A page as that person's browser gets it (pages read the session cookie)."""
    token = headers["Authorization"].removeprefix("Bearer ")
    page = await client.get(path, headers={"Cookie": f"{SESSION_COOKIE}={token}"})
    assert page.status_code == 200, page.text
    return page.text


async def _tasks(client: httpx.AsyncClient, headers: dict[str, str]) -> list[dict[str, Any]]:
    listed = await client.get("/api/tasks", params={"env_id": "prod"}, headers=headers)
    tasks: list[dict[str, Any]] = listed.json()
    return tasks


async def test_one_engineer_cannot_deploy_to_prod_through_the_api_a_second_one_runs_it_once(
    settings: Settings,
    source: FakeSuperset,
    prod: tuple[FakeSuperset, str],
    auth: AuthHeaders,
) -> None:
    target, _ = prod
    engineer = auth(Role.engineer)
    async with served_with_tasks(settings, source) as (app, client):
        request = await _held_deploy(client, engineer)
        assert request["status"] == "awaiting_second"
        assert request["link"] == f"/approvals/{request['id']}"
        assert request["requested_by"] == "engineer"
        assert "второго" in request["message"]
        assert "«Отчёт»" in request["title"]
        await asyncio.sleep(0.5)  # had anything started, a task or an import would show
        assert await _tasks(client, engineer) == []
        assert _imports(target) == 0

        url = f"/api/approvals/{request['id']}"
        own = await client.post(url, json={"decision": "approve"}, headers=engineer)
        assert own.status_code == 409, own.text
        assert "второй человек" in own.json()["detail"]
        analyst = await client.post(url, json={"decision": "approve"}, headers=auth(Role.analyst))
        assert analyst.status_code == 403, analyst.text
        assert "инженер" in analyst.json()["detail"]

        second = await second_engineer(settings)
        listed = (await client.get("/api/approvals", headers=second)).json()
        [shown] = [one for one in listed["approvals"] if one["id"] == request["id"]]
        assert shown["can_approve"] is True
        assert shown["requested_by"] == "engineer"
        # The API and the page read the request alike: no approval of the requester's on record.
        assert shown["first_approved_at"] is None
        assert shown["requested_at"] is not None
        assert listed["can_approve"] >= 1
        # The link the requester shares opens a page with the buttons, for the second person.
        page = await _page(client, f"/approvals/{request['id']}", second)
        assert "«Отчёт»" in page
        assert 'id="approval-approve"' in page
        assert "Ожидает второго одобрения" in page
        assert request["id"] in await _page(client, "/approvals", second)
        home = await _page(client, "/", second)
        assert "Ждут вашего одобрения: 1" in home
        assert f'href="/approvals/{request["id"]}"' in home
        assert "waiting-for-you" not in await _page(client, "/", engineer)  # their own request
        own_page = await _page(client, f"/approvals/{request['id']}", engineer)
        assert 'id="approval-approve"' not in own_page
        assert "Это ваш запрос" in own_page

        # Ten presses at once, through both routes: one write.
        answers = await asyncio.gather(
            *(
                client.post(
                    url if n % 2 else f"/api/write-requests/{request['id']}",
                    json={"decision": "approve"},
                    headers=second,
                )
                for n in range(10)
            )
        )
        assert sorted(answer.status_code for answer in answers).count(200) == 1, [
            (answer.status_code, answer.text) for answer in answers
        ]
        assert {answer.status_code for answer in answers} <= {200, 409}
        [task] = await _tasks(client, engineer)
        assert (task["started_by"], task["approved_by"]) == ("engineer", "engineer2")

        async def ended() -> bool:
            return bool((await _tasks(client, engineer))[0]["status"] in FINISHED)

        await eventually(ended, timeout_s=60)
        assert (await _tasks(client, engineer))[0]["status"] == "succeeded"
        assert _imports(target) == 1
        decided = (await client.get(url, headers=engineer)).json()
        assert (decided["status"], decided["decided_by"]) == ("approved", "engineer2")
        page = await _page(client, f"/approvals/{request['id']}", engineer)
        assert "Одобрено — изменение запущено задачей" in page
        assert f'href="/tasks/{task["id"]}"' in page
        assert 'id="approval-approve"' not in page
        assert request["id"] not in await _page(client, "/approvals", second)
        assert "waiting-for-you" not in await _page(client, "/", second)
        # Every listing of the write names both people.
        both = "engineer, одобрил(а) engineer2"
        assert both in await _page(client, f"/tasks/{task['id']}", engineer)
        assert both in await _page(client, "/tasks", engineer)

        async with app.state.services.sessions() as session:
            rows = (await session.scalars(select(AuditEntry))).all()
    approved = [row for row in rows if row.action == "deploy_approved"]
    assert [(row.username, row.detail.get("approved_by")) for row in approved] == [
        ("engineer", "engineer2")
    ]
    asked = [row for row in rows if row.action == "approval_requested"]
    assert [row.detail["write_request_id"] for row in asked] == [request["id"]]


async def test_a_held_deploy_whose_target_moved_writes_nothing_and_says_so(
    settings: Settings,
    source: FakeSuperset,
    prod: tuple[FakeSuperset, str],
    auth: AuthHeaders,
) -> None:
    target, _ = prod
    engineer = auth(Role.engineer)
    async with served_with_tasks(settings, source) as (_, client):
        request = await _held_deploy(client, engineer)
        target.dashboard_fields = {**target.dashboard_fields, "css": "/* a hotfix in prod */"}
        second = await second_engineer(settings)
        url = f"/api/write-requests/{request['id']}"
        moved = await client.post(url, json={"decision": "approve"}, headers=second)
        assert moved.status_code == 409, moved.text
        assert "цель изменилась" in moved.json()["detail"]
        after = (await client.get(url, headers=engineer)).json()
        assert after["status"] == "target_moved"
        assert await _tasks(client, engineer) == []
    assert _imports(target) == 0


async def test_the_requester_may_withdraw_a_held_write_never_approve_it(
    settings: Settings, source: FakeSuperset, auth: AuthHeaders
) -> None:
    engineer = auth(Role.engineer)
    async with served_with_tasks(settings, source) as (_, client):
        request = await _held_deploy(client, engineer)
        url = f"/api/write-requests/{request['id']}"
        withdrawn = await client.post(
            url, json={"decision": "deny", "reason": "передумал"}, headers=engineer
        )
        assert withdrawn.status_code == 200, withdrawn.text
        assert (withdrawn.json()["status"], withdrawn.json()["reason"]) == ("denied", "передумал")
        second = await second_engineer(settings)
        late = await client.post(url, json={"decision": "approve"}, headers=second)
        assert late.status_code == 409
        assert late.json()["detail"] == "запрос отклонён"
        assert await _tasks(client, engineer) == []


async def test_a_data_change_in_prod_through_the_sql_api_waits_for_a_second_engineer(
    settings: Settings,
    source: FakeSuperset,
    prod: tuple[FakeSuperset, str],
    auth: AuthHeaders,
) -> None:
    target, _ = prod
    engineer = auth(Role.engineer)
    dml = "delete from regions where population_thousands = 0"
    async with served_with_tasks(settings, source) as (_, client):
        read = await client.post(
            "/api/sql/execute",
            params={"env_id": "prod"},
            json={"database_id": 1, "sql": "select count(*) from regions"},
            headers=engineer,
        )
        assert read.status_code == 200, read.text  # a read needs nobody else
        held = await client.post(
            "/api/sql/execute",
            params={"env_id": "prod"},
            json={"database_id": 1, "sql": dml},
            headers=engineer,
        )
        assert held.status_code == 202, held.text
        assert held.json()["status"] == "awaiting_second"
        assert target.executed_sql == ["select count(*) from regions"]
        second = await second_engineer(settings)
        url = f"/api/approvals/{held.json()['id']}"
        ran = await client.post(url, json={"decision": "approve"}, headers=second)
        assert ran.status_code == 200, ran.text
        assert ran.json()["status"] == "approved"
        again = await client.post(url, json={"decision": "approve"}, headers=second)
        assert again.status_code == 409
    assert target.executed_sql == ["select count(*) from regions", dml]


async def test_where_one_person_is_enough_the_api_writes_at_once(
    settings: Settings, source: FakeSuperset, auth: AuthHeaders
) -> None:
    one = settings.model_copy(update={"approvals_prod": 1})
    engineer = auth(Role.engineer)
    async with served_with_tasks(one, source) as (_, client):
        plan = await client.post("/api/deploy/plan", json=BODY, headers=engineer)
        started = await client.post(
            "/api/deploy", json={**BODY, "digest": plan.json()["digest"]}, headers=engineer
        )
        assert started.status_code == 202, started.text
        assert started.json()["status"] in ("queued", "running", "succeeded")
        assert started.json()["approved_by"] is None
