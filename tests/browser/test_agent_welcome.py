"""The /agent page as a newcomer opens it (issue 33 §9): questions that fit the page, one line
saying no model is connected, a way back to the object; a question offered is asked in one
click and answered. In Chromium, on the real sandbox, the offline planner answering."""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import expect

from sstools.agent.offline.planner import OfflinePlanner
from sstools.testing import ScriptedChatModel
from sstools.web.strings import SUGGESTIONS, UI
from tests.browser.conftest import screenshot

DASHBOARD = (
    "/agent?objectType=dashboard&objectId=10&objectName=%D0%9E%D1%82%D1%87%D1%91%D1%82"
    "&envId=ss-dev&route=%2Fdashboards%2F10"
)
PHONE = {"width": 390, "height": 844}


def _offline() -> ScriptedChatModel:
    return ScriptedChatModel(script=OfflinePlanner(environment_ids=("ss-dev", "staging", "prod")))


async def test_an_empty_dashboard_chat_offers_questions_and_one_click_asks_one(site: Any) -> None:
    async with site(None, model=_offline()) as s:
        page = await s.page(DASHBOARD)
        offered = page.locator("#suggestions .suggestion")
        await expect(offered).to_have_text(SUGGESTIONS["dashboard"])
        await expect(page.locator("#agent-offline")).to_have_text(UI["agent_offline_notice"])
        back = page.locator("#context-back")
        await expect(back).to_have_attribute("href", "/dashboards/10?env_id=ss-dev")
        await screenshot(page, "agent-welcome-dashboard")
        await page.set_viewport_size(PHONE)
        await screenshot(page, "agent-welcome-dashboard-phone")
        sign_out = await page.locator("#logout").bounding_box()
        assert sign_out is not None
        assert sign_out["x"] + sign_out["width"] <= PHONE["width"]  # on screen, not cut off
        header = await page.locator(".topbar").bounding_box()
        assert header is not None
        assert header["height"] <= 0.12 * PHONE["height"], header  # the header leaves the chat room

        await offered.first.click()
        await expect(page.locator(".msg.user")).to_have_text(SUGGESTIONS["dashboard"][0])
        await expect(page.locator("#suggestions")).to_be_hidden()
        answer = page.locator(".msg.assistant").last
        await expect(answer).to_contain_text(re.compile("[а-яё]{3}"), timeout=30_000)
        await expect(page.locator(".card")).to_have_count(0)  # a question: no card
        await page.reload()  # the conversation goes on: nothing offered over it
        await expect(page.locator(".msg.user")).to_have_count(1)
        await expect(page.locator("#suggestions")).to_be_hidden()

        # With no model, nothing is called «LLM-»: the checks are named for what they do.
        await page.fill("#message", "что ты умеешь?")
        await page.click("#send")
        skills = page.locator(".msg.assistant").last
        await expect(skills).to_contain_text("Проверка дашборда", timeout=30_000)
        await expect(skills).to_contain_text("Документация дашборда")
        await expect(page.locator("#transcript")).not_to_contain_text("LLM")
    assert s.console_errors == []


async def test_a_general_chat_offers_fleet_questions_and_no_way_back(site: Any) -> None:
    async with site(None, model=_offline()) as s:
        page = await s.page("/agent?envId=ss-dev&route=%2Fagent")
        await expect(page.locator("#suggestions .suggestion")).to_have_text(SUGGESTIONS[None])
        await expect(page.locator("#context-back")).to_have_count(0)
        await screenshot(page, "agent-welcome-general")


async def test_with_a_model_the_page_says_nothing_of_offline_answers(site: Any) -> None:
    async with site(lambda messages, offered: None) as s:
        page = await s.page(DASHBOARD)
        await expect(page.locator("#suggestions .suggestion")).to_have_count(
            len(SUGGESTIONS["dashboard"])
        )
        await expect(page.locator("#agent-offline")).to_have_count(0)
