"""/audit in Chromium, on a desktop and a phone: every action's row readable, nothing wider than
the screen, the CSV a download of the same rows, and the nav's link only for those who may read
it."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import expect

from sstools.auth.roles import Role
from sstools.testing import answer
from tests.browser.conftest import screenshot
from tests.web.audit_log import seed_audit

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_the_audit_reads_on_a_desktop_and_a_phone(
    site: Any, viewport: dict[str, int]
) -> None:
    async with site(answer("не используется")) as s:
        await seed_audit(s.settings)
        page = await s.page("/audit", Role.admin)
        await page.set_viewport_size(viewport)
        await page.reload()  # laid out at this size from the start, as a phone opens it
        rows = page.locator(".audit-table tbody tr")
        await expect(rows).to_have_count(5)
        await expect(rows.first).to_contain_text("MCP")
        await expect(rows.nth(1)).to_contain_text("отклонено")
        await expect(rows.nth(3)).to_contain_text("engineer, engineer2")
        await expect(rows.nth(3).locator("a", has_text="Задача")).to_have_count(
            2
        )  # and its rollback
        await expect(page.locator("nav.nav a[href='/audit']")).to_have_attribute(
            "aria-current", "page"
        )
        overflow = await page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"the page is {overflow} px wider than the screen"
        await screenshot(page, f"audit-{'phone' if viewport == PHONE else 'desktop'}")
        async with page.expect_download() as download:
            await page.click("text=Скачать CSV")
        assert (await download.value).suggested_filename == "audit.csv"
        assert s.console_errors == []


async def test_an_analyst_has_no_audit_link_and_gets_the_refusal_page(site: Any) -> None:
    async with site(answer("не используется")) as s:
        page = await s.page("/tasks", Role.analyst)
        await expect(page.locator("nav.nav a[href='/audit']")).to_have_count(0)
        await page.goto(s.url + "/audit")
        await expect(page.locator("h1")).to_have_text("Нет доступа")
        await screenshot(page, "audit-analyst")
