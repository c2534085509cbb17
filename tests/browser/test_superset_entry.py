"""Issue 37 §5: «Спросить агента» from Superset itself. On the sandbox's real Superset dashboard
page, with a native filter applied (its state under the URL's native_filters_key), the
bookmarklet from /settings lands the person on /agent with that dashboard, its environment
(known by Superset's address) and the filter."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from langchain_core.messages import AIMessage, BaseMessage
from playwright.async_api import Page, expect

from sstools.auth.roles import Role
from sstools.sandbox import Sandbox
from sstools.web.superset_entry import bookmarklet
from tests.browser.conftest import screenshot

REGION = "Москва"


def _plain(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    return AIMessage(content="Смотрю.")


async def _signed_in_superset(page: Page, url: str, username: str, password: str) -> None:
    await page.goto(f"{url}/login/")
    await page.fill("[data-test=username-input]", username)  # Superset's own login form
    await page.fill("[data-test=password-input]", password)
    await page.press("[data-test=password-input]", "Enter")
    await page.wait_for_url(lambda address: "/login" not in address, timeout=60_000)


async def _filter_state(page: Page, dashboard_id: int) -> str:
    """A native filter's state on region, stored as Superset's own UI stores it: its key."""
    mask = {
        "NATIVE_FILTER-region": {
            "id": "NATIVE_FILTER-region",
            "extraFormData": {"filters": [{"col": "region", "op": "IN", "val": [REGION]}]},
            "filterState": {"value": [REGION]},
        }
    }
    key: Any = await page.evaluate(
        """async ([id, value]) => {
            const csrf = (await (await fetch('/api/v1/security/csrf_token/')).json()).result;
            const made = await fetch(`/api/v1/dashboard/${id}/filter_state`, {
                method: 'POST',
                headers: {'Content-Type': 'application/json', 'X-CSRFToken': csrf},
                body: JSON.stringify({value}),
            });
            return (await made.json()).key;
        }""",
        [dashboard_id, json.dumps(mask)],
    )
    assert isinstance(key, str), key
    return key


async def test_the_bookmarklet_on_a_superset_dashboard_opens_the_agent_with_its_filters(
    site: Any, sandbox: Sandbox
) -> None:
    dev = next(env for env in sandbox.environments() if env.id == "ss-dev")
    async with site(_plain) as s:
        settings_page = await s.page("/settings", Role.analyst)
        link = settings_page.locator("#bookmarklet")
        await expect(link).to_have_text("Спросить агента (sstools)")
        href = await link.get_attribute("href")
        assert href == bookmarklet(s.url + "/")
        await link.scroll_into_view_if_needed()
        await screenshot(settings_page, "superset-entry-settings-desktop")
        await settings_page.set_viewport_size({"width": 390, "height": 844})
        await screenshot(settings_page, "superset-entry-settings-phone")

        superset = await (await s.browser.new_context()).new_page()
        await _signed_in_superset(superset, dev.url, dev.username, dev.password.get_secret_value())
        key = await _filter_state(superset, 10)
        await superset.goto(f"{dev.url}/superset/dashboard/10/?native_filters_key={key}")
        await superset.evaluate("() => { window.open = (url) => { window.__opened = url; }; }")
        await superset.evaluate(unquote(href.removeprefix("javascript:")))
        await superset.wait_for_function("() => window.__opened", timeout=30_000)
        opened = str(await superset.evaluate("() => window.__opened"))
        assert opened.startswith(f"{s.url}/agent/from-superset?")

        agent = await s.page(opened.removeprefix(s.url), Role.analyst)
        await agent.wait_for_url("**/agent?**")
        assert "objectType=dashboard&objectId=10" in agent.url
        assert "envId=ss-dev" in agent.url
        await expect(agent.locator("#context-chip")).to_have_text(
            f"Дашборд «Отчёт по энергопотреблению» · ss-dev · фильтры: region: {REGION}"
        )
        await screenshot(agent, "superset-entry-agent")


async def test_a_superset_sstools_does_not_know_is_refused_in_words(
    site: Any, sandbox: Sandbox
) -> None:
    dev = next(env for env in sandbox.environments() if env.id == "ss-dev")
    async with site(_plain) as s:
        page = await s.page(
            "/agent/from-superset?superset=http://elsewhere.example:8088&dashboard=10",
            Role.analyst,
        )
        await expect(page.locator("body")).to_contain_text("не подключён к sstools")
        bad = await s.page(
            f"/agent/from-superset?superset={dev.url}&dashboard=10&filters=%5B%7B%7D%5D",
            Role.analyst,
        )
        await expect(bad.locator("body")).to_contain_text("Фильтры дашборда не прочитать")
