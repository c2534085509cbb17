"""A person's own access tokens on the settings page (issue 35, sign-in), in Chromium on the real
app: «Создать токен» shows the token once, it signs its user in as a Bearer token, «Отозвать»
ends it at once; desktop and phone."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.async_api import expect

from sstools.auth.roles import Role
from sstools.testing import answer
from tests.browser.conftest import screenshot
from tests.browser.test_tasks_pages import DESKTOP, PHONE, _fits


async def test_a_token_made_on_the_settings_page_signs_in_until_it_is_revoked(site: Any) -> None:
    async with site(answer("ок")) as s:
        page = await s.page("/settings", Role.engineer)
        panel = page.locator("#tokens")
        await expect(panel.locator(".tokens-none")).to_be_visible()
        await page.fill("#token-name", "claude-desktop")
        await page.fill("#token-days", "30")
        await page.click("#token-form button[type=submit]")
        shown = page.locator("#token-value")
        await expect(page.locator("#token-made")).to_be_visible()
        token = await shown.input_value()
        assert token.startswith("sst_pat_"), token
        row = panel.locator("tbody tr", has_text="claude-desktop")
        await expect(row).to_have_count(1)
        for size, name in ((DESKTOP, "settings-tokens-1280"), (PHONE, "settings-tokens-390")):
            await page.set_viewport_size(size)
            await _fits(page)
            await screenshot(page, name)
        await page.set_viewport_size(DESKTOP)

        bearer = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=s.url, headers=bearer) as api:
            me = await api.get("/api/auth/me")
            assert (me.status_code, me.json()["username"]) == (200, "engineer")

            await page.reload()  # the list as the server keeps it: the name, never the token
            await expect(row).to_have_count(1)
            assert token not in await page.content()

            revoke = row.locator(".token-revoke")
            await revoke.click()  # the first press asks again, on the button itself
            await expect(revoke).to_have_text(
                "Точно отозвать? Клиенты с ним перестанут входить сразу"
            )
            assert (await api.get("/api/auth/me")).status_code == 200  # nothing revoked yet
            await revoke.click()
            await expect(row).to_have_count(0)
            await expect(panel.locator(".tokens-none")).to_be_visible()
            assert (await api.get("/api/auth/me")).status_code == 401
    assert s.console_errors == []
    assert s.dialogs == []  # no native dialog: the button itself asks again
