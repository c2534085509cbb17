"""/docs in a real Chromium: Swagger UI renders from our own assets under the strict CSP."""

from __future__ import annotations

from typing import Any

from playwright.async_api import expect

from sstools.testing import answer


async def test_docs_render_the_operations_with_no_csp_violation(site: Any) -> None:
    async with site(answer("не используется")) as s:
        page = await s.page("/docs")
        page_errors: list[str] = []
        page.on("pageerror", lambda error: page_errors.append(str(error)))
        await expect(page.get_by_text("/api/auth/login", exact=True)).to_be_visible(timeout=15_000)
        await expect(page.get_by_text("/api/sql/execute", exact=True)).to_be_visible()
        requested_elsewhere = await page.evaluate(
            "performance.getEntriesByType('resource')"
            ".map(e => e.name).filter(u => !u.startsWith(location.origin))"
        )
        assert requested_elsewhere == []  # no CDN: every asset is ours
        assert s.console_errors == []  # a CSP violation is logged as a console error
        assert page_errors == []


async def test_redoc_is_off(site: Any) -> None:
    async with site(answer("не используется")) as s:
        page = await s.page("/redoc")
        assert await page.title() != "sstools - ReDoc"
        assert "ReDoc" not in await page.content()
