"""Sign in and out in a real Chromium: back to the page asked for, never to another host."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.async_api import Page

from sstools.auth.roles import Role
from sstools.testing import answer
from tests.conftest import PASSWORDS


async def _sign_in(page: Page, role: Role) -> None:
    await page.fill("input[name=username]", role.value)
    await page.fill("input[name=password]", PASSWORDS[role])
    await page.click("button[type=submit]")


async def test_sign_in_returns_to_the_page_and_sign_out_revokes_the_session(site: Any) -> None:
    async with site(answer("не используется")) as s:
        context = await s.browser.new_context(locale="ru-RU")
        page = await context.new_page()
        await page.goto(s.url + "/settings")
        assert page.url == s.url + "/login?next=%2Fsettings"
        await _sign_in(page, Role.analyst)
        await page.wait_for_url(s.url + "/settings")
        cookies = {c["name"]: c["value"] for c in await context.cookies()}
        session = cookies["sstools_session"]
        await page.click("#logout")
        await page.wait_for_url(s.url + "/login")
        async with httpx.AsyncClient(base_url=s.url) as client:
            me = await client.get("/api/auth/me", headers={"Authorization": f"Bearer {session}"})
        await context.close()
    assert me.status_code == 401  # the logout button revoked the token, not just the cookie


async def test_a_next_that_leaves_the_site_lands_on_our_own_page(site: Any) -> None:
    async with site(answer("не используется")) as s:
        context = await s.browser.new_context(locale="ru-RU")
        page = await context.new_page()
        await page.goto(s.url + "/login?next=/%5Cexample.com/")
        await _sign_in(page, Role.analyst)
        await page.wait_for_url(s.url + "/dashboards")
        await context.close()
