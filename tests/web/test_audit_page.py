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
from pathlib import Path
from typing import Any

import httpx
import pytest

from sstools import clock
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.http.auth import SESSION_COOKIE
from sstools.storage.models import ConversationEvent
from sstools.testing.fake_superset import FakeSuperset
from tests.conftest import AuthHeaders, app_client, environments_for, make_settings, seed_users
from tests.rig import store_rows, task_record
from tests.web.audit_log import FORMULA_NAME, log_decision, log_entry, make_card, seed_audit

# The query reads JSON and compares rows in SQL: its tests run on both databases.
BOTH_DATABASES = pytest.mark.parametrize("settings", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
async def settings(
    request: pytest.FixtureRequest, tmp_path: Path, fake_superset: FakeSuperset
) -> Settings:
    """The default rig on SQLite, or on PostgreSQL for a test marked :data:`BOTH_DATABASES`."""
    settings = make_settings(tmp_path, environments_for(tmp_path, fake_superset))
    if getattr(request, "param", "sqlite") == "postgres":
        settings = settings.model_copy(update={"database_url": request.getfixturevalue("pg_url")})
    await seed_users(settings)
    return settings


@pytest.fixture
async def seeded(settings: Settings) -> dict[str, Any]:
    return await seed_audit(settings)


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


@BOTH_DATABASES
async def test_one_row_per_decided_write_newest_first_with_its_task(
    api: httpx.AsyncClient, auth: AuthHeaders, seeded: dict[str, Any]
) -> None:
    rows = await _rows(api, auth(Role.admin))
    assert _titles(rows) == [
        ("Выкатка в Dev: «Продажи»", "ss-dev"),  # the MCP request, closed by its decision
        ("Выполнение SQL", "prod"),
        ("Выкатка дашборда", "ss-dev"),
        ("Выкатка дашборда", "prod"),  # two people, one row
        ("Выкатка дашборда", "ss-dev"),  # ten days old
    ]
    mcp, sql, dev, prod, _ = rows
    assert (prod["requested_by"], prod["approved_by"]) == ("engineer", ["engineer", "engineer2"])
    assert prod["task"]["rolled_back_by"]["link"] == f"/tasks/{seeded['rollback'].id}"
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


@BOTH_DATABASES
async def test_filters_narrow_by_person_environment_tool_outcome_and_days(
    api: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    admin = auth(Role.admin)
    today = clock.now().date()
    assert _titles(await _rows(api, admin, person="admin")) == [("Выполнение SQL", "prod")]
    assert [r["env_id"] for r in await _rows(api, admin, env_id="prod")] == ["prod", "prod"]
    assert (
        len(await _rows(api, admin, tool="deploy_dashboard")) == 4
    )  # cards and a request's and a request's
    assert [r["outcome"] for r in await _rows(api, admin, outcome="refused")] == ["refused"]
    recent = await _rows(api, admin, **{"from": (today - timedelta(days=1)).isoformat()})
    assert len(recent) == 4
    older = await _rows(api, admin, to=(today - timedelta(days=5)).isoformat())
    assert [r["digest"] for r in older] == ["e" * 12]


@BOTH_DATABASES
async def test_pages_follow_one_another_without_repeating(
    api: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    admin = auth(Role.admin)
    seen: list[int] = []
    times: list[str] = []
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
        times += [row["at"] for row in answer["rows"]]
        after = answer["next"]
        if after is None:
            break
    assert len(seen) == 5
    assert len(set(seen)) == 5
    assert seen == [row["id"] for row in await _rows(api, admin)]  # as one page has them
    assert times == sorted(times, reverse=True)


@BOTH_DATABASES
async def test_an_engineer_sees_only_what_they_asked_or_decided(
    api: httpx.AsyncClient, auth: AuthHeaders, settings: Settings
) -> None:
    rows = await _rows(api, auth(Role.engineer))
    assert "Выполнение SQL" not in [row["title"] for row in rows]  # the admin's SQL
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


@BOTH_DATABASES
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
        ({"after": "1.9999999999"}, "after", "испорчена"),  # past a 32-bit row id
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


async def test_the_calendar_s_ends_are_days_like_any_other(
    api: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    everything = await _rows(api, auth(Role.admin), **{"from": "0001-01-01", "to": "9999-12-31"})
    assert len(everything) == 5


async def test_an_analyst_reads_no_audit_whatever_the_filters(
    api: httpx.AsyncClient, auth: AuthHeaders, settings: Settings
) -> None:
    analyst = auth(Role.analyst)
    for path in ("/api/audit", "/api/audit.csv", "/api/audit?from=never"):
        answer = await api.get(path, headers=analyst)
        assert answer.status_code == 403, path
        assert "инженерам и администраторам" in answer.json()["detail"]
    page = await api.get("/audit", headers=_page(settings, analyst))
    assert page.status_code == 403
    assert "Нет доступа" in page.text


@BOTH_DATABASES
async def test_an_mcp_write_without_a_request_and_a_card_s_task_from_its_chat(
    api: httpx.AsyncClient, auth: AuthHeaders, settings: Settings
) -> None:
    """An MCP write declined at the host is a refusal of its own (the call that was held is the
    request's row, not another); a card that does not name its task finds it in its chat."""
    minute = timedelta(minutes=1)
    for outcome in ("declined", "held"):
        await log_entry(
            settings,
            minute,
            action="tool_call",
            outcome=outcome,
            username="engineer",
            env_id="ss-dev",
            tool="superset_create_dataset",
            kind="write",
            face="mcp",
        )
    card = make_card("superset_create_dataset", "ss-dev", "engineer")
    task = task_record(kind="documentation")
    said = ConversationEvent(
        conversation_id=card.conversation_id,
        seq=1,
        type="tool_result",
        data={
            "type": "tool_result",
            "tool": card.tool,
            "call_id": card.call_id,
            "outcome": "ok",
            "task_id": task.id,
        },
    )
    await store_rows(settings, card, task, said)
    await log_decision(settings, 2 * minute, card, "approved")
    mcp, chat = await _rows(api, auth(Role.admin), tool="superset_create_dataset")
    assert (mcp["face"], mcp["outcome"], mcp["refused_by"]) == ("mcp", "refused", "engineer")
    assert mcp["title"] == "Создание датасета"
    assert (chat["face"], chat["task"]["id"]) == ("chat", task.id)


async def test_an_approved_card_whose_call_wrote_nothing_says_why(
    api: httpx.AsyncClient, auth: AuthHeaders, settings: Settings
) -> None:
    card = make_card("superset_create_dataset", "ss-dev", "engineer")
    said = ConversationEvent(
        conversation_id=card.conversation_id,
        seq=1,
        type="tool_result",
        data={
            "call_id": card.call_id,
            "outcome": "error",
            "message": "Создание датасета не удалось: такой датасет уже есть",
        },
    )
    await store_rows(settings, card, said)
    await log_decision(settings, timedelta(seconds=30), card, "approved")
    [row] = await _rows(api, auth(Role.admin), tool="superset_create_dataset")
    assert (row["outcome"], row["task"]) == ("approved", None)
    assert row["call_failed"] == "Создание датасета не удалось: такой датасет уже есть"
    page = await api.get("/audit", headers=_page(settings, auth(Role.admin)))
    assert "Не выполнено: Создание датасета не удалось" in page.text
