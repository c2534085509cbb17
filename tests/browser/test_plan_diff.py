"""A plan's values in Chromium on the real sandbox: the deploy card's «Показать изменения» and
the dashboard page's «Сравнить», for the drifted «Energy KPIs» (dev's CSS is the drift marker,
staging's and prod's are empty)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page, expect

from sstools.sandbox.seed import DRIFT_MARKER, DRIFTED_DASHBOARD
from sstools.testing import call_tool
from tests.browser.conftest import ask, screenshot
from tests.integration.deploy_support import Restore, Superset

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
XSS = '</style><img src=x onerror="alert(1)"><script>alert(2)</script>'
# Over 10 KB: the card shows it cut at 4 KB, flagged.
HUGE_CSS = XSS + "\n" + "\n".join(f".tile-{n} {{ color: #{n:06x}; }}" for n in range(400))


async def _kpis_id(superset: Superset, env_id: str) -> int:
    page = await superset(env_id).search_dashboards(DRIFTED_DASHBOARD)
    return next(item.id for item in page.items if item.title == DRIFTED_DASHBOARD)


async def _no_sideways_scroll(page: Page) -> None:
    width = await page.evaluate("() => document.documentElement.scrollWidth")
    viewport = await page.evaluate("() => document.documentElement.clientWidth")
    assert width <= viewport, f"the page scrolls sideways: {width} > {viewport}"


def _agent(board: int) -> str:
    return f"/agent?objectType=dashboard&objectId={board}&envId=ss-dev&route=/dashboards/{board}"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_the_deploy_card_shows_the_css_before_and_after(
    site: Any, superset: Superset, viewport: dict[str, int]
) -> None:
    board = await _kpis_id(superset, "ss-dev")
    async with site(call_tool("deploy_dashboard", {"target_env_id": "prod"})) as s:
        page = await s.page(_agent(board))
        await page.set_viewport_size(viewport)
        await ask(page, "выкати на прод")
        card = page.locator(".card.tone-destructive")
        await expect(card.locator(".card-impact")).to_contain_text("1 дашборд будет изменён")
        changes = card.locator("details.card-changes")
        diff = changes.locator(".diff")
        await expect(diff).to_be_hidden()  # collapsed until asked for
        await changes.locator("summary").click()
        await expect(changes.locator("h4")).to_have_text(
            [f"дашборд «{DRIFTED_DASHBOARD}»: изменить"]
        )
        await expect(changes.locator(".change-field")).to_have_text(["CSS"])
        await expect(diff.locator(".diff-add")).to_have_text([f"+{DRIFT_MARKER}"])
        await expect(diff.locator(".diff-del")).to_have_text(["-(пусто)"])  # prod's CSS: empty
        await expect(changes.locator(".diff-legend")).to_have_text(
            "− сейчас в цели + после выкатки"
        )
        family = await diff.evaluate("(box) => getComputedStyle(box).fontFamily")
        assert "mono" in family.lower()
        await _no_sideways_scroll(page)
        await card.scroll_into_view_if_needed()
        name = "phone" if viewport == PHONE else "desktop"
        await screenshot(page, f"card-diff-{name}")
    assert s.dialogs == []


async def test_a_10_kb_css_is_cut_on_the_card_and_shown_as_text(
    site: Any, superset: Superset, restore: Restore
) -> None:
    await restore("staging")
    staging = await _kpis_id(superset, "staging")
    await superset("staging").put_json(f"/api/v1/dashboard/{staging}", {"css": HUGE_CSS})
    board = await _kpis_id(superset, "ss-dev")
    async with site(call_tool("deploy_dashboard", {"target_env_id": "staging"})) as s:
        page = await s.page(_agent(board))
        await page.set_viewport_size(PHONE)
        await ask(page, "выкати в staging")
        card = page.locator(".card.tone-info")
        await card.locator("details.card-changes summary").click()
        diff = card.locator(".diff")
        # Staging's CSS was the XSS and the tiles: text on the card, never markup.
        await expect(diff.locator(".diff-del").first).to_have_text(f"-{XSS}")
        await expect(diff.locator(".diff-add")).to_have_text([f"+{DRIFT_MARKER}"])
        await expect(card.locator(".change-cut")).to_have_text(
            "Показано не полностью: значение длиннее 4 КБ обрезано («…»)"
        )
        await expect(diff.locator(".diff-del").last).to_contain_text("…")  # staging's, cut
        await expect(card.locator("button", has_text="Подтвердить")).to_be_visible()
        await _no_sideways_scroll(page)
        assert await card.locator("img, script").count() == 0
        await card.locator(".change-cut").scroll_into_view_if_needed()
        await screenshot(page, "card-diff-cut-phone")
    assert s.dialogs == []


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_differs_yes_opens_the_compare_page_with_the_same_diff(
    site: Any, superset: Superset, viewport: dict[str, int]
) -> None:
    board = await _kpis_id(superset, "ss-dev")
    async with site(call_tool("get_health_summary", {})) as s:
        page = await s.page(f"/dashboards/{board}?env_id=ss-dev")
        await page.set_viewport_size(viewport)
        prod = page.locator('#placements tr[data-env-id="prod"]')
        compare = f"/dashboards/{board}/compare?env_id=ss-dev&target=prod"
        await expect(prod.locator("a.action-compare")).to_have_attribute("href", compare)
        await prod.locator("td.differs a", has_text="да").click()
        await page.wait_for_url(f"**{compare}")
        section = page.locator("#compare")
        await expect(page.locator("h1")).to_contain_text(f"Сравнение «{DRIFTED_DASHBOARD}»")
        await expect(section).to_contain_text("Только просмотр")
        await expect(section.locator(".compare-object h3")).to_have_text(
            [f"дашборд «{DRIFTED_DASHBOARD}»: изменить"]
        )
        await expect(section.locator(".change-field")).to_have_text(["CSS"])
        await expect(section.locator(".diff .diff-add")).to_have_text([f"+{DRIFT_MARKER}"])
        await expect(section.locator(".diff .diff-del")).to_have_text(["-(пусто)"])
        await _no_sideways_scroll(page)
        await screenshot(page, f"compare-{'phone' if viewport == PHONE else 'desktop'}")
