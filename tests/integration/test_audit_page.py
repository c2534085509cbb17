"""/audit on the real sandbox: a prod deploy asked in the chat by one engineer and approved by
another is one row, naming both, the dashboard by its name, and a task link that opens; an
engineer who took no part does not see it, an analyst gets no audit at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import re

import httpx

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import UserExists, add_user
from sstools.config import Settings
from sstools.http.auth import SESSION_COOKIE
from sstools.storage.db import create_engine, session_factory
from tests.conftest import SECOND_ENGINEER, AuthHeaders, second_engineer
from tests.integration.deploy_support import REPORT, Superset, kept_as_it_was
from tests.integration.test_second_approval import (
    PROD_EDIT,
    _prod_id,
    _requested,
    agent,
)
from tests.support import read_events

BYSTANDER = "engineer3"


async def _bystander(settings: Settings) -> dict[str, str]:
    """An engineer who neither asks nor approves anything here."""
    engine = create_engine(settings.database_url)
    async with session_factory(engine)() as session:
        with contextlib.suppress(UserExists):  # made by an earlier test on this database
            await add_user(session, BYSTANDER, Role.engineer, "engineer3-test-password")
    await engine.dispose()
    token = issue_token(settings, Principal(username=BYSTANDER, role=Role.engineer))
    return {"Authorization": f"Bearer {token}"}


def _cookie(headers: dict[str, str]) -> dict[str, str]:
    """The same person as a browser: their token in the session cookie, asking for a page."""
    token = headers["Authorization"].removeprefix("Bearer ")
    return {"Cookie": f"{SESSION_COOKIE}={token}", "Accept": "text/html"}


async def test_a_prod_deploy_two_people_approved_is_one_audit_row_naming_both(
    client: httpx.AsyncClient, auth: AuthHeaders, settings: Settings, superset: Superset
) -> None:
    prod_id = await _prod_id(client, auth)
    engineer = auth(Role.engineer)
    async with kept_as_it_was(superset, "prod", prod_id) as prod, agent(settings) as (live, _):
        await prod.put_json(f"/api/v1/dashboard/{prod_id}", {"css": PROD_EDIT})
        second = await second_engineer(settings)
        bystander = await _bystander(settings)
        cid, card = await _requested(live, engineer)
        approved = await live.post(
            f"/api/approvals/{card['confirmation_id']}",
            json={"decision": "approve"},
            headers=second,
        )
        assert approved.status_code == 200, approved.text
        await read_events(live, cid, engineer, last_event_id=card["_id"], timeout_s=180)
        for _ in range(120):  # the deploy's task runs on: wait until it has ended
            rows = (await live.get("/api/audit", headers=auth(Role.admin))).json()["rows"]
            mine = [
                row
                for row in rows
                if row["task"] and row["approved_by"] == ["engineer", SECOND_ENGINEER]
            ]
            if mine and mine[0]["task"]["status"] in ("succeeded", "failed"):
                break
            await asyncio.sleep(0.5)
        page = await live.get("/audit", headers=_cookie(auth(Role.admin)))
        own = (await live.get("/api/audit", headers=engineer)).json()["rows"]
        others = (await live.get("/api/audit", headers=bystander)).json()["rows"]
        analyst_api = await live.get("/api/audit", headers=auth(Role.analyst))
        analyst_page = await live.get("/audit", headers=_cookie(auth(Role.analyst)))
        row = next(r for r in rows if r["task"] and r["digest"] == card["decision"]["digest"][:12])
        task_page = await live.get(row["task"]["link"], headers=_cookie(engineer))
    # One row for the action, however many audit rows it wrote.
    same = [r for r in rows if r["task"] and r["task"]["id"] == row["task"]["id"]]
    assert len(same) == 1
    assert (row["requested_by"], row["face"], row["env_id"]) == ("engineer", "chat", "prod")
    assert row["approved_by"] == ["engineer", SECOND_ENGINEER]
    assert row["outcome"] == "approved"
    assert row["task"]["status"] == "succeeded", row["task"]
    assert any(REPORT in line for line in row["objects"]), row["objects"]
    # The page says it in words: both people, the dashboard's name, the task's link.
    text = html.unescape(re.sub(r"<[^>]+>", " ", page.text))
    assert page.status_code == 200
    assert text.count(f"Задача {row['task']['short']}") == 1
    assert f"engineer, {SECOND_ENGINEER}" in text
    assert REPORT in text
    assert f'href="/tasks/{row["task"]["id"]}"' in page.text
    assert task_page.status_code == 200
    assert REPORT in html.unescape(task_page.text)
    # The requester sees it; an engineer who took no part does not.
    assert row["id"] in [r["id"] for r in own]
    assert row["id"] not in [r["id"] for r in others]
    assert all(BYSTANDER in (r["requested_by"], *r["approved_by"]) for r in others)
    # An analyst reads no audit: a 403 in words, as JSON and as the house's error page.
    assert analyst_api.status_code == 403
    assert "инженерам и администраторам" in analyst_api.json()["detail"]
    assert analyst_page.status_code == 403
    assert "Нет доступа" in analyst_page.text
    assert "инженерам" in analyst_page.text
