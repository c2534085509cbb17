"""The dashboard page in Chromium: where the dashboard lives, and its «Развернуть…» action."""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import expect

from sstools.russian import MONTHS_GENITIVE
from sstools.testing import answer
from tests.browser.conftest import screenshot, twin
from tests.integration.deploy_support import Superset

HOTFIX = "/* a hotfix made in staging */"
HUMAN_DATE = re.compile(rf"\b\d{{1,2}} ({'|'.join(MONTHS_GENITIVE)}) \d{{4}}, \d{{2}}:\d{{2}}\b")


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
        # A date as people write it, never raw ISO, whatever day the suite runs on.
        await expect(current).to_contain_text(HUMAN_DATE)
        await expect(current).not_to_contain_text(re.compile(r"\d{4}-\d{2}-\d{2}"))
        await expect(table.locator('tr[data-env-id="prod"] .stage')).to_have_text("Продуктив")
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


async def test_differs_column_says_which_environments_a_deploy_would_change(
    site: Any, superset: Superset
) -> None:
    """A hotfix in staging: staging differs from ss-dev («да»), prod does not («нет»)."""
    staging = superset("staging")
    _, staging_id = await twin(superset, "staging")
    path = f"/api/v1/dashboard/{staging_id}"
    before = str((await staging.get_json(path))["result"]["css"] or "")
    await staging.put_json(path, {"css": HOTFIX})
    try:
        async with site(answer("не используется")) as s:
            page = await s.page("/dashboards/10?env_id=ss-dev")
            table = page.locator("#placements table")
            await expect(table.locator("thead")).to_contain_text("Отличается от источника")
            differs = table.locator("td.differs")
            await expect(table.locator('tr[data-env-id="staging"] td.differs')).to_have_text("да")
            await expect(table.locator('tr[data-env-id="prod"] td.differs')).to_have_text("нет")
            await expect(table.locator('tr[data-env-id="ss-dev"] td.differs')).to_have_text("—")
            await expect(differs).to_have_count(3)
            await screenshot(page, "dashboard-differs")
    finally:
        await staging.put_json(path, {"css": before})
