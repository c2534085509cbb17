"""👍 / 👎 under the agent's answers in a real Chromium (issue 39 §4): 👎 opens a comment with
«Отправить», both are stored with the turn, and a reload shows what was chosen."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect
from sqlalchemy import select

from sstools.config import Settings
from sstools.storage.db import create_engine, session_factory
from sstools.storage.models import AnswerFeedback
from sstools.testing import answer
from sstools.testing.fake_superset import FakeSuperset
from sstools.web.strings import UI
from tests.browser.conftest import ask, screenshot
from tests.rig import settings_for_places

ANSWER = "Ошибок нет: дашборд обновлён вчера."


@pytest.fixture
async def settings(tmp_path: Path) -> Settings:
    """No Superset is asked: the answer is the scripted model's and rating it is sstools' own
    (an environment on a closed port, so nothing waits for the sandbox)."""
    places = [("ss-dev", "Dev", "dev", "http://127.0.0.1:9")]
    return await settings_for_places(tmp_path, FakeSuperset(), places)


async def _stored(settings: Settings) -> list[tuple[str, str, str | None]]:
    engine = create_engine(settings.database_url)
    try:
        async with session_factory(engine)() as session:
            rows = await session.scalars(select(AnswerFeedback))
            return [(row.username, row.rating, row.comment) for row in rows]
    finally:
        await engine.dispose()


async def _both_screens(page: Page, name: str) -> None:
    await screenshot(page, f"{name}-desktop")
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.wait_for_timeout(300)  # the transcript re-lays out and follows its end
    await screenshot(page, f"{name}-phone")
    await page.set_viewport_size({"width": 1280, "height": 900})


async def test_thumbs_down_with_a_comment_is_stored_and_a_reload_shows_it(site: Any) -> None:
    async with site(answer(ANSWER)) as s:
        page = await s.page("/agent?envId=ss-dev")
        await ask(page, "как дела у дашбордов?")
        bubble = page.locator(".msg.assistant")
        up = bubble.get_by_role("button", name=UI["feedback_up"])
        down = bubble.get_by_role("button", name=UI["feedback_down"])
        await expect(down).to_have_attribute("aria-pressed", "false")
        await expect(up).to_have_attribute("aria-pressed", "false")
        # The answer reads as it was said: the buttons add no words to it.
        await expect(bubble).to_have_text(re.compile(rf"^{re.escape(ANSWER)}"))
        await _both_screens(page, "agent-feedback-unrated")

        await down.click()
        comment = bubble.get_by_role("textbox", name=UI["feedback_comment"])
        await expect(comment).to_be_focused()
        await expect(down).to_have_attribute("aria-pressed", "true")
        await comment.fill("Ошибки есть: три графика не грузятся")
        await _both_screens(page, "agent-feedback-comment")
        await bubble.get_by_role("button", name=UI["send"]).click()
        await expect(bubble.locator(".feedback-status")).to_have_text(UI["feedback_commented"])
        await expect(comment).to_be_hidden()
        assert await _stored(s.settings) == [
            ("engineer", "down", "Ошибки есть: три графика не грузятся")
        ]

        await page.reload()
        bubble = page.locator(".msg.assistant")
        down = bubble.get_by_role("button", name=UI["feedback_down"])
        await expect(down).to_have_attribute("aria-pressed", "true")
        await expect(bubble.get_by_role("button", name=UI["feedback_up"])).to_have_attribute(
            "aria-pressed", "false"
        )
        await expect(bubble.locator(".feedback-status")).to_have_text(UI["feedback_commented"])
        await _both_screens(page, "agent-feedback-after-reload")
        await down.click()  # a second 👎 opens the comment as it was, nothing is lost
        await expect(bubble.get_by_role("textbox", name=UI["feedback_comment"])).to_have_value(
            "Ошибки есть: три графика не грузятся"
        )
        assert s.dialogs == []
