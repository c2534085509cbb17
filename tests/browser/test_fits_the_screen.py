"""What a person sees fits their screen: the last item of the transcript above the sticky
composer, and the dashboard page without a sideways scroll on a phone."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page, expect

from sstools.testing import answer
from tests.browser.conftest import ask, screenshot

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
# Long enough to grow well past a screen after it lands: markdown renders it in many lines.
LONG_ANSWER = "\n\n".join(
    f"{n}. Пункт ответа номер {n}, в котором есть что прочитать." for n in range(40)
)


async def _hidden_under_the_composer(page: Page) -> float:
    """How many pixels of the transcript's last item lie below the composer's top edge."""
    return float(
        await page.evaluate(
            """() => {
              const last = document.getElementById("transcript").lastElementChild;
              const composer = document.getElementById("composer");
              return last.getBoundingClientRect().bottom - composer.getBoundingClientRect().top;
            }"""
        )
    )


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_a_long_answer_ends_above_the_composer(site: Any, viewport: dict[str, int]) -> None:
    async with site(answer(LONG_ANSWER)) as s:
        page = await s.page("/agent?objectType=dashboard&objectId=10&envId=ss-dev")
        await page.set_viewport_size(viewport)
        await ask(page, "расскажи подробно")
        last = page.locator("#transcript > li").last
        await expect(last).to_contain_text("Пункт ответа номер 39")
        # The answer grows as it renders; the page keeps its end in view once it has settled.
        await page.wait_for_function(
            """() => {
              const last = document.getElementById("transcript").lastElementChild;
              const composer = document.getElementById("composer");
              return last.getBoundingClientRect().bottom <= composer.getBoundingClientRect().top;
            }""",
            timeout=5_000,
        )
        assert await _hidden_under_the_composer(page) <= 0
        await screenshot(page, f"agent-long-answer-{'phone' if viewport == PHONE else 'desktop'}")


async def test_the_dashboard_page_on_a_phone_has_no_sideways_scroll(site: Any) -> None:
    async with site(answer("не используется")) as s:
        page = await s.page("/dashboards/10?env_id=ss-dev")
        await page.set_viewport_size(PHONE)
        table = page.locator("#placements table")
        await expect(table.locator("tbody tr")).to_have_count(3)
        overflow = await page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        wide = await page.evaluate(
            '() => [...document.querySelectorAll("body *")]'
            ".filter(e => e.getBoundingClientRect().right > innerWidth)"
            '.map(e => e.tagName + "." + e.className)'
        )
        assert overflow <= 0, f"the page is {overflow} px wider than the phone: {wide}"
        # The actions stay on screen and each value keeps its label.
        deploy = table.locator('tr[data-env-id="prod"] .action-deploy')
        box = await deploy.bounding_box()
        assert box is not None
        assert box["x"] + box["width"] <= PHONE["width"]
        await expect(table.locator('tr[data-env-id="prod"] td.presence')).to_be_visible()
        await table.scroll_into_view_if_needed()
        await screenshot(page, "dashboard-phone")
