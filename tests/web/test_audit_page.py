"""/audit, ``GET /api/audit`` and the CSV over a log written as the app writes it: one row per
decided write (a read a person confirmed is none), filters by person, environment, tool,
outcome and dates, keyset pages, an engineer's own rows only, formulas in the CSV made text,
and a bad filter a 422 naming its field. The chat's real flow (two people, prod, a task) is
tests/integration/test_audit_page.py."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any
from uuid import uuid4

import httpx
import pytest

from sstools import clock
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.http.auth import SESSION_COOKIE
from sstools.storage import audit
from sstools.storage.db import create_engine, session_factory
from sstools.storage.models import Confirmation, TaskRecord, WriteRequest
from tests.conftest import AuthHeaders, app_client
from tests.rig import store_rows

FORMULA_NAME = '=HYPERLINK("http://evil.test","Отчёт")'


def _card(tool: str, env_id: str, by: str, *, kind: str = "write", **decision: Any) -> Confirmation:
    now = clock.now()
    event = {
        "type": "confirm_required",
        "tool": tool,
        "title": {"deploy_dashboard": "Выкатка дашборда"}.get(tool, "Выполнение SQL"),
        "decision": {"kind": kind, "env_id": env_id, **decision},
    }
    return Confirmation(
        id=uuid4().hex,
        conversation_id=uuid4().hex,
        interrupt_id="i",
        call_id=f"call_{uuid4().hex[:6]}",
        tool=tool,
        args_hash="h",
        env_id=env_id,
        username=by,
        event=event,
        status="approved",
        created_at=now,
        expires_at=now + timedelta(minutes=5),
    )


async def _log(settings: Settings, ago: timedelta, **entry: Any) -> None:
    """One audit row written by the app's own writer, ``ago`` before now."""
    engine = create_engine(settings.database_url)
    async with session_factory(engine)() as session:
        with clock.moved_to(clock.now() - ago):
            await audit.record(session, **entry)
    await engine.dispose()


@pytest.fixture
async def seeded(settings: Settings) -> dict[str, Any]:
    """A dev deploy the engineer approved alone (its object named like a formula), a prod SQL
    change the admin asked and denied, an MCP deploy of the engineer's whose task failed, an
    old deploy, and a read the engineer confirmed — plus reads nobody confirmed."""
    dev = _card("deploy_dashboard", "ss-dev", "engineer", digest="d" * 64, objects=[FORMULA_NAME])
    dev.task_id = uuid4().hex
    sql = _card(
        "superset_execute_sql",
        "prod",
        "admin",
        arguments=[{"label": "SQL", "value": "DELETE FROM sales"}],
    )
    old = _card(
        "deploy_dashboard",
        "ss-dev",
        "engineer",
        digest="e" * 64,
        objects=["дашборд «Склад»: изменить"],
    )
    read = _card("superset_execute_sql", "ss-dev", "engineer", kind="read")
    failed_task = TaskRecord(
        id=uuid4().hex,
        kind="deploy",
        workflow="t",
        objects=["Продажи"],
        env_id="ss-dev",
        started_by="engineer",
        status="failed",
        error="Superset не ответил",
    )
    dev_task = TaskRecord(
        id=dev.task_id,
        kind="deploy",
        workflow="t",
        objects=["Отчёт"],
        env_id="ss-dev",
        started_by="engineer",
        status="succeeded",
        result={"imported": ["Отчёт"]},
    )
    held = WriteRequest(
        kind="deploy",
        body={},
        env_id="ss-dev",
        digest="f" * 64,
        title="Выкатка в Dev: «Продажи»",
        objects=["Продажи"],
        requested_by="engineer",
        requester_id="u",
        requester_token_version=0,
        approver_role="engineer",
        status="approved",
        expires_at=clock.now() + timedelta(hours=1),
        decided_by="engineer",
        task_id=failed_task.id,
    )
    await store_rows(settings, dev, sql, old, read, failed_task, dev_task, held)
    minute = timedelta(minutes=1)
    for _ in range(5):  # reads, as the executor logs every call: no action of anyone's
        await _log(
            settings,
            minute,
            action="tool_call",
            outcome="ok",
            username="engineer",
            tool="list_tasks",
            kind="read",
        )
    await _log(
        settings,
        timedelta(days=10),
        action="confirmation_decided",
        outcome="approved",
        username="engineer",
        conversation_id=old.conversation_id,
        confirmation_id=old.id,
    )
    await _log(
        settings,
        4 * minute,
        action="confirmation_decided",
        outcome="approved",
        username="engineer",
        conversation_id=read.conversation_id,
        confirmation_id=read.id,
    )
    await _log(
        settings,
        3 * minute,
        action="confirmation_decided",
        outcome="approved",
        username="engineer",
        conversation_id=dev.conversation_id,
        confirmation_id=dev.id,
    )
    await _log(
        settings,
        2 * minute,
        action="confirmation_decided",
        outcome="denied",
        username="admin",
        conversation_id=sql.conversation_id,
        confirmation_id=sql.id,
        reason="+не сегодня",
    )
    await _log(
        settings,
        2 * minute,
        action="approval_requested",
        outcome="awaiting_first",
        username="engineer",
        env_id="ss-dev",
        write_request_id=held.id,
        kind="deploy",
        face="mcp",
    )
    await _log(
        settings,
        minute,
        action="write_request_decided",
        outcome="first_approved",
        username="engineer",
        env_id="ss-dev",
        write_request_id=held.id,
        kind="deploy",
        requested_by="engineer",
    )
    await _log(
        settings,
        minute,
        action="write_request_decided",
        outcome="approved",
        username="engineer",
        env_id="ss-dev",
        write_request_id=held.id,
        kind="deploy",
        requested_by="engineer",
        task_id=failed_task.id,
    )
    return {"dev": dev, "sql": sql, "old": old, "held": held, "failed_task": failed_task}


@pytest.fixture
async def api(settings: Settings, seeded: dict[str, Any]) -> AsyncIterator[httpx.AsyncClient]:
    async with app_client(settings) as client:
        yield client


async def _rows(
    api: httpx.AsyncClient, headers: dict[str, str], **params: str
) -> list[dict[str, Any]]:
    answer = await api.get("/api/audit", params=params, headers=headers)
    assert answer.status_code == 200, answer.text
    rows: list[dict[str, Any]] = answer.json()["rows"]
    return rows


def _titles(rows: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    return [(row["title"], row["env_id"]) for row in rows]


async def test_one_row_per_decided_write_newest_first_with_its_task(
    api: httpx.AsyncClient, auth: AuthHeaders, seeded: dict[str, Any]
) -> None:
    rows = await _rows(api, auth(Role.admin))
    assert _titles(rows) == [
        ("Выкатка в Dev: «Продажи»", "ss-dev"),  # the MCP request, closed by its decision
        ("Выполнение SQL", "prod"),
        ("Выкатка дашборда", "ss-dev"),
        ("Выкатка дашборда", "ss-dev"),  # ten days old
    ]
    mcp, sql, dev, _ = rows
    assert (mcp["face"], mcp["approved_by"], mcp["outcome"]) == ("mcp", ["engineer"], "approved")
    assert (mcp["task"]["status"], mcp["task"]["link"]) == (
        "failed",
        f"/tasks/{seeded['failed_task'].id}",
    )
    assert (sql["face"], sql["refused_by"], sql["outcome"], sql["reason"]) == (
        "chat",
        "admin",
        "refused",
        "+не сегодня",
    )
    assert sql["objects"] == ["SQL: DELETE FROM sales"]
    assert (dev["digest"], dev["task"]["status"]) == ("d" * 12, "succeeded")


async def test_filters_narrow_by_person_environment_tool_outcome_and_days(
    api: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    admin = auth(Role.admin)
    today = clock.now().date()
    assert _titles(await _rows(api, admin, person="admin")) == [("Выполнение SQL", "prod")]
    assert [r["env_id"] for r in await _rows(api, admin, env_id="prod")] == ["prod"]
    assert len(await _rows(api, admin, tool="deploy_dashboard")) == 3  # a card's and a request's
    assert [r["outcome"] for r in await _rows(api, admin, outcome="refused")] == ["refused"]
    recent = await _rows(api, admin, **{"from": (today - timedelta(days=1)).isoformat()})
    assert len(recent) == 3
    older = await _rows(api, admin, to=(today - timedelta(days=5)).isoformat())
    assert [r["digest"] for r in older] == ["e" * 12]


async def test_pages_follow_one_another_without_repeating(
    api: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    admin = auth(Role.admin)
    seen: list[int] = []
    after: str | None = None
    for _ in range(5):
        answer = (
            await api.get(
                "/api/audit",
                params={"size": "2", **({"after": after} if after else {})},
                headers=admin,
            )
        ).json()
        seen += [row["id"] for row in answer["rows"]]
        after = answer["next"]
        if after is None:
            break
    assert len(seen) == 4
    assert len(set(seen)) == 4
    assert seen == sorted(seen, reverse=True)


async def test_an_engineer_sees_only_what_they_asked_or_decided(
    api: httpx.AsyncClient, auth: AuthHeaders, settings: Settings
) -> None:
    rows = await _rows(api, auth(Role.engineer))
    assert "prod" not in [row["env_id"] for row in rows]  # the admin's SQL
    assert {row["requested_by"] for row in rows} == {"engineer"}
    # Asking for someone else's is no way round it.
    assert await _rows(api, auth(Role.engineer), person="admin") == []
    page = await api.get("/audit", headers=_page(settings, auth(Role.engineer)))
    assert "DELETE FROM sales" not in page.text
    assert "Вы видите только свои действия" in page.text


def _page(settings: Settings, headers: dict[str, str]) -> dict[str, str]:
    token = headers["Authorization"].removeprefix("Bearer ")
    return {"Cookie": f"{SESSION_COOKIE}={token}", "Accept": "text/html"}


async def test_the_nav_links_the_audit_for_engineers_and_admins_only(
    api: httpx.AsyncClient, auth: AuthHeaders, settings: Settings
) -> None:
    def linked(role: Role) -> bool:
        return 'href="/audit"' in pages[role]

    pages = {
        role: (await api.get("/tasks", headers=_page(settings, auth(role)))).text for role in Role
    }
    assert (linked(Role.analyst), linked(Role.engineer), linked(Role.admin)) == (False, True, True)


async def test_the_csv_has_the_filtered_rows_and_formulas_as_text(
    api: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    answer = await api.get("/api/audit.csv", params={"env_id": "ss-dev"}, headers=auth(Role.admin))
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/csv")
    lines = list(csv.reader(io.StringIO(answer.text.removeprefix("\ufeff"))))
    head, body = lines[0], lines[1:]
    assert head[1] == "кто просил"
    assert len(body) == 3  # the prod SQL is filtered out
    objects = [line[head.index("объекты")] for line in body]
    assert "'" + FORMULA_NAME in objects
    assert not any(cell.startswith(("=", "+", "-", "@")) for line in body for cell in line)
    engineer = await api.get("/api/audit.csv", headers=auth(Role.engineer))
    assert "DELETE FROM sales" not in engineer.text


@pytest.mark.parametrize(
    ("params", "field", "words"),
    [
        ({"from": "2026-13-01"}, "from", "ГГГГ-ММ-ДД"),
        ({"to": "вчера"}, "to", "ГГГГ-ММ-ДД"),
        ({"outcome": "maybe"}, "outcome", "approved, refused, failed"),
        ({"tool": "list_tasks"}, "tool", "изменяющего действия нет"),
        ({"env_id": "moon"}, "env_id", "такого окружения нет"),
        ({"size": "1000"}, "size", "от 1 до 100"),
        ({"after": "abc"}, "after", "испорчена"),
        ({"from": "2026-12-05", "to": "2026-12-01"}, "to", "раньше"),
    ],
)
async def test_a_bad_filter_is_a_422_naming_the_field(
    api: httpx.AsyncClient,
    auth: AuthHeaders,
    settings: Settings,
    params: dict[str, str],
    field: str,
    words: str,
) -> None:
    answer = await api.get("/api/audit", params=params, headers=auth(Role.admin))
    assert answer.status_code == 422
    [problem] = answer.json()["detail"]
    assert problem["loc"] == ["query", field]
    assert words in problem["msg"]
    page = await api.get("/audit", params=params, headers=_page(settings, auth(Role.admin)))
    assert page.status_code == 422
    assert words in page.text  # the house's error page, in words
