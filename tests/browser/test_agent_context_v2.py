"""Issue 37 §1 in a real Chromium: /agent reads a dashboard's filters, a chart and a SQL Lab tab
from its URL, says them in words on the chip, and sends them as UIContext version 2 — where the
model reads them only as data inside the context block."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from langchain_core.messages import AIMessage, BaseMessage
from playwright.async_api import expect

from sstools.agent.context import BLOCK_END, BLOCK_START
from sstools.auth.roles import Role
from tests.browser.conftest import ask, screenshot

FILTERS = [
    {"column": "region", "op": "IN", "values": ["Москва", "Казань", "Тверь", "Омск", "Тула"]},
    {"column": "consumption_mwh", "op": ">=", "values": [100]},
    {"column": "sector", "op": "NOT IN", "values": ["<b>x</b>"]},  # a value is text, not HTML
]


def _plain(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    return AIMessage(content="Смотрю с вашими фильтрами.")


def _agent_url(**extra: str) -> str:
    base = "/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/dashboards/10"
    return base + "".join(f"&{key}={quote(value)}" for key, value in extra.items())


async def test_the_chip_says_the_pages_filters_and_chart_and_the_model_reads_them_as_data(
    site: Any,
) -> None:
    async with site(_plain) as s:
        page = await s.page(_agent_url(filters=json.dumps(FILTERS), chartId="3"), Role.analyst)
        chip = page.locator("#context-chip")
        await expect(chip).to_have_text(
            "Дашборд «Отчёт по энергопотреблению» · ss-dev · фильтры: region: Москва, Казань, "
            "Тверь, ещё 2; "
            "consumption_mwh ≥ 100; sector: кроме <b>x</b> · график #3"
        )
        assert await page.locator("#context-chip b").count() == 0
        await screenshot(page, "context-v2-desktop")
        await ask(page, "почему тут такие цифры?")
        await expect(page.locator(".msg.assistant")).to_contain_text("Смотрю с вашими фильтрами")
        await page.set_viewport_size({"width": 390, "height": 844})
        await screenshot(page, "context-v2-phone")
        # In another environment the filters still hold (columns by name); dev's chart #3 not.
        await page.select_option("#env-selector", "staging")
        await expect(chip).to_contain_text("staging · фильтры: region")
        await expect(chip).not_to_contain_text("график")
        assert s.dialogs == []
    [block] = [
        json.loads(prompt.split(BLOCK_START)[1].split(BLOCK_END)[0])
        for prompt in s.model.system_prompts()
        if BLOCK_START in prompt
    ]
    assert block["contextVersion"] == 2
    assert block["filters"] == FILTERS
    assert block["chartId"] == "3"


async def test_a_sql_lab_tab_and_a_page_without_version_2_parts(site: Any) -> None:
    async with site(_plain) as s:
        sql = "SELECT region, sum(consumption_mwh)\nFROM energy_consumption\nGROUP BY region"
        page = await s.page(
            "/agent?envId=ss-dev&route=/sqllab/&sql=" + quote(sql) + "&databaseId=1", Role.analyst
        )
        await expect(page.locator("#context-chip")).to_have_text(
            "без контекста · ss-dev · SQL Lab, база #1"
        )
        await ask(page, "что делает этот запрос?")
        await expect(page.locator(".msg.assistant")).to_contain_text("Смотрю")
        # Filters are a dashboard's: on a dataset's page the URL's filters are not sent.
        plain = await s.page(
            "/agent?objectType=dataset&objectId=1&envId=ss-dev&route=/datasets/1&filters="
            + quote(json.dumps(FILTERS)),
            Role.analyst,
        )
        await expect(plain.locator("#context-chip")).not_to_contain_text("фильтры")
        await ask(plain, "что это за датасет?")
        await expect(plain.locator(".msg.assistant")).to_contain_text("Смотрю")
    blocks = [
        json.loads(prompt.split(BLOCK_START)[1].split(BLOCK_END)[0])
        for prompt in s.model.system_prompts()
        if BLOCK_START in prompt
    ]
    assert blocks[0]["sqlLab"] == {"sql": sql, "databaseId": "1", "schema": None}
    assert blocks[-1]["contextVersion"] == 1
    assert "filters" not in blocks[-1]
