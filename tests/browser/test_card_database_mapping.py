"""A database mapped on a deploy's card, in Chromium (issue 25 §2): the person opens «Изменить…»,
picks the target's other connection for the dashboard's database and asks for the plan again;
the new card names the mapping in words, and approving applies exactly the mapped plan.

The agent's tools reach a stand-in for the domain API's plan and apply (tests/agent/
deploy_server.py), since on the sandbox every dataset already exists in the target, where
Superset's import cannot move it (tests/integration/test_deploy_plan.py asserts that side).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from playwright.async_api import ViewportSize, expect

from sstools.auth.roles import Role
from sstools.config import Settings
from tests.agent.deploy_server import DeployServer, deploys  # noqa: F401  (fixture)
from tests.browser.conftest import ask, screenshot

AGENT = "/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/dashboards/10"
PHONE = ViewportSize(width=390, height=844)
DESKTOP = ViewportSize(width=1280, height=900)


@pytest.fixture
def settings(settings: Settings, deploys: tuple[DeployServer, str]) -> Settings:  # noqa: F811
    server, url = deploys
    server.target_databases = {"db-target": "Демо-данные", "db-dwh": "Склад DWH"}
    return settings.model_copy(update={"tools_base_url": url})


def _to_staging(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    if isinstance(messages[-1], ToolMessage):
        return AIMessage(content="Выкатка запущена.")
    call = {"name": "deploy_dashboard", "args": {"target_env_id": "staging"}, "id": "c1"}
    return AIMessage(content="", tool_calls=[call])


async def test_a_person_maps_the_database_on_the_card_and_the_mapped_plan_is_applied(
    site: Any,
    deploys: tuple[DeployServer, str],  # noqa: F811
) -> None:
    server, _ = deploys
    async with site(_to_staging) as s:
        page = await s.page(AGENT, Role.engineer)
        await ask(page, "выкати этот дашборд в staging")
        first = page.locator(".card").first
        await first.locator("button", has_text="Изменить…").click()
        mapping = first.get_by_label("Подключение в цели для базы «Демо-данные»")
        await expect(mapping).to_have_value("Демо-данные")
        options = await mapping.locator("option").all_inner_texts()
        assert options == ["Демо-данные", "Склад DWH"]  # names, never a UUID or a URI
        await mapping.select_option(label="Склад DWH")
        await screenshot(page, "agent-card-database-desktop")
        await page.set_viewport_size(PHONE)
        await first.scroll_into_view_if_needed()
        await screenshot(page, "agent-card-database-phone")
        await page.set_viewport_size(DESKTOP)

        await first.locator("button", has_text="Пересчитать план").click()
        await expect(first.locator(".card-stamp")).to_contain_text("Изменено")
        second = page.locator(".card").nth(1)
        await expect(second.locator(".card-args")).to_contain_text("«Демо-данные» → «Склад DWH»")
        assert server.plans[-1]["database_mapping"] == {"Демо-данные": "Склад DWH"}
        assert server.applies == []
        assert not s.console_errors, s.console_errors
        await screenshot(page, "agent-card-database-mapped-desktop")

        await second.locator("button", has_text="Подтвердить").click()
        await expect(second.locator(".card-stamp")).to_have_text(
            re.compile(r"^Подтверждено: engineer, \d\d:\d\d$")
        )
    mapped = [apply["database_mapping"] for apply in server.applies]
    assert mapped == [{"Демо-данные": "Склад DWH"}]
    assert server.applies[0]["digest"] == server.plan_of(server.plans[-1])["digest"]
