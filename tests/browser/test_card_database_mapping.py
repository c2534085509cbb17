"""A database mapped on a deploy's card, in Chromium on the real sandbox (issue 25 §2): staging
gets a second connection, the person points the dashboard's database at it on the card, the
server plans again, and approving deploys the datasets onto that connection."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from playwright.async_api import ViewportSize, expect

from sstools.auth.roles import Role
from sstools.sandbox.seed import DATABASE_NAME
from tests.browser.conftest import ask, drift, screenshot
from tests.integration.deploy_support import Superset, export_all, put_back

AGENT = "/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/dashboards/10"
PHONE = ViewportSize(width=390, height=844)
DESKTOP = ViewportSize(width=1280, height=900)
SECOND = "Склад DWH"


@pytest.fixture
async def second_connection(superset: Superset) -> AsyncIterator[int]:
    """Staging with a second connection to the demo data (its id); afterwards staging as it
    was, datasets on the first connection again, and the second one deleted."""
    staging = superset("staging")
    saved = await export_all(staging)
    first = next(db for db in await staging.list_databases() if db.name == DATABASE_NAME)
    uri = (await staging.get_json(f"/api/v1/database/{first.id}"))["result"]["sqlalchemy_uri"]
    body = await staging.post_json(
        "/api/v1/database/", {"database_name": SECOND, "sqlalchemy_uri": uri}
    )
    try:
        yield int(body["id"])
    finally:
        await put_back(staging, saved)
        await staging.delete(f"/api/v1/database/{body['id']}")


def _to_staging(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    if isinstance(messages[-1], ToolMessage):
        return AIMessage(content="Выкатка запущена.")
    call = {"name": "deploy_dashboard", "args": {"target_env_id": "staging"}, "id": "c1"}
    return AIMessage(content="", tool_calls=[call])


async def _datasets_on(superset: Superset, database_id: int) -> list[str]:
    query = {
        "columns": ["table_name"],
        "filters": [{"col": "database", "opr": "rel_o_m", "value": database_id}],
    }
    found = await superset("staging").get_json("/api/v1/dataset/", query=query)
    return sorted(str(row["table_name"]) for row in found["result"])


async def test_a_person_maps_the_database_on_the_card_and_the_deploy_uses_it(
    site: Any, superset: Superset, second_connection: int
) -> None:
    await drift(superset, "staging")  # staging's copy differs: the plan changes something
    assert await _datasets_on(superset, second_connection) == []
    async with site(_to_staging) as s:
        page = await s.page(AGENT, Role.engineer)
        await ask(page, "выкати этот дашборд в staging")
        first = page.locator(".card").first
        await first.locator("button", has_text="Изменить…").click()
        mapping = first.get_by_label(f"База «{DATABASE_NAME}» в цели")
        options = await mapping.locator("option").all_inner_texts()
        assert options == sorted([DATABASE_NAME, SECOND])  # names only, never a URI or UUID
        await mapping.select_option(label=SECOND)
        await screenshot(page, "agent-card-database-desktop")
        await page.set_viewport_size(PHONE)
        await first.scroll_into_view_if_needed()
        await screenshot(page, "agent-card-database-phone")
        await page.set_viewport_size(DESKTOP)

        await first.locator("button", has_text="Пересчитать план").click()
        await expect(first.locator(".card-stamp")).to_contain_text("Изменено")
        second = page.locator(".card").nth(1)
        await expect(second.locator(".card-args")).to_contain_text(
            f"«{DATABASE_NAME}» → «{SECOND}»"
        )
        await second.locator("button", has_text="Подтвердить").click()
        await expect(second.locator(".card-stamp")).to_have_text(
            re.compile(r"^Подтверждено: engineer, \d\d:\d\d$")
        )
        await expect(page.locator(".task-line")).to_have_text(
            "Задача «выкатка»: выполнена", timeout=90_000
        )
        assert not s.console_errors, s.console_errors
    assert await _datasets_on(superset, second_connection) != []
