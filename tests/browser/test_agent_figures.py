"""Issue 37 §4 in a real Chromium: a dashboard's numbers asked in the chat are drawn as bars from
the tool's own answer, with the same numbers as a table (what a phone shows and a screen reader
reads); the model's words draw nothing."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from playwright.async_api import expect

from sstools.auth.roles import Role
from tests.browser.conftest import ask, screenshot

BY_REGION = "Потребление по регионам"


def _data_then_words(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    if isinstance(messages[-1], ToolMessage):
        # Numbers in the model's words are not drawn: only the tool's answer is.
        return AIMessage(content="По Москве 999999 МВт·ч (это слова модели, не график).")
    return AIMessage(
        content="", tool_calls=[{"name": "get_dashboard_data", "args": {}, "id": "call_1"}]
    )


async def test_the_numbers_are_drawn_from_the_tools_answer_with_a_table_beside(site: Any) -> None:
    async with site(_data_then_words) as s:
        page = await s.page(
            "/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/dashboards/10",
            Role.analyst,
        )
        await ask(page, "какие тут цифры?")
        figure = page.locator(".figures figure", has_text=BY_REGION)
        await expect(figure).to_have_count(1)
        table = figure.locator("table.figure-table")
        assert await table.locator("tbody tr").count() >= 3  # one row per region
        await expect(table.locator("thead th").first).to_have_text("region")
        assert "999999" not in (await page.locator(".figures").inner_text())
        drawn = await figure.locator("canvas").evaluate("(c) => Boolean(window.Chart.getChart(c))")
        assert drawn is True
        await expect(page.locator(".msg.assistant")).to_contain_text("слова модели")
        await screenshot(page, "agent-figures-desktop")
        await page.set_viewport_size({"width": 390, "height": 844})
        await expect(figure.locator(".figure-bars")).to_be_hidden()
        await expect(table).to_be_visible()  # on a phone, the numbers as a table
        await screenshot(page, "agent-figures-phone")
        await page.reload()  # drawn again from the event log, as it was
        await expect(page.locator(".figures figure", has_text=BY_REGION)).to_have_count(1)
        assert s.dialogs == []
        assert s.console_errors == []
