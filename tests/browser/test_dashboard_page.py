"""The dashboard page in Chromium: where the dashboard lives, and its «Развернуть…» action."""

from __future__ import annotations

from typing import Any

from playwright.async_api import expect

from sstools.testing import answer
from tests.browser.conftest import screenshot


async def test_the_environments_table_and_deploy_open_the_agent_with_a_prefilled_request(
    site: Any,
) -> None:
    async with site(answer("не используется")) as s:
        page = await s.page("/dashboards/10?env_id=ss-dev")
        table = page.locator("#placements table")
        await expect(table.locator("tbody tr")).to_have_count(3)
        current = table.locator('tr[data-env-id="ss-dev"]')
        await expect(current).to_contain_text("текущее")
        await expect(current.locator(".presence")).to_contain_text("есть")
        # A date as people write it, never raw ISO.
        await expect(current).to_contain_text("ноября 2026, ")
        await expect(table.locator('tr[data-env-id="prod"] .stage')).to_have_text("prod")
        await expect(current.locator(".action-deploy")).to_have_count(0)
        await screenshot(page, "dashboard-environments")

        await table.locator('tr[data-env-id="prod"] .action-deploy').click()
        await page.wait_for_url("**/agent?**")
        assert "objectType=dashboard&objectId=10" in page.url
        await expect(page.locator("#context-chip")).to_have_text(
            "Дашборд «Отчёт по энергопотреблению» · ss-dev"
        )
        await expect(page.locator("#message")).to_have_value(
            "Разверни этот дашборд в окружение «Superset prod»"
        )
        await expect(page.locator(".msg")).to_have_count(0)  # prefilled, not sent
        assert s.console_errors == []
