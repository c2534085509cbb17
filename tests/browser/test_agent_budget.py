"""/agent when a person's tokens for today are spent: the server's Russian sentence (how many
of how many, when it starts afresh) shows as the chat's status line, not a raw status code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.sandbox import Sandbox
from sstools.testing import answer
from tests.browser.conftest import ask, screenshot
from tests.conftest import make_settings, seed_users


@pytest.fixture
async def settings(sandbox: Sandbox, tmp_path: Path) -> Settings:
    """A day's budget smaller than one answer: the first message spends it."""
    settings = make_settings(
        tmp_path, sandbox.settings.environments_file.resolve(), llm_tokens_per_user_day=1
    )
    await seed_users(settings)
    return settings


@pytest.mark.parametrize(
    "viewport",
    [{"width": 1280, "height": 900}, {"width": 390, "height": 844}],
    ids=["desktop", "phone"],
)
async def test_a_person_over_the_token_budget_reads_why_in_russian(
    site: Any, viewport: dict[str, int]
) -> None:
    async with site(answer("Готово: вот что я нашёл.")) as s:
        page = await s.page("/agent?envId=ss-dev", Role.engineer)
        await page.set_viewport_size(viewport)
        await ask(page, "привет")
        await expect(page.locator(".msg.assistant").last).to_contain_text("Готово")
        await ask(page, "и ещё вопрос")
        refusal = page.locator("#transcript .status.error").last
        await expect(refusal).to_contain_text("Дневной лимит токенов исчерпан")
        await expect(refusal).to_contain_text("00:00 UTC")
        await expect(refusal).not_to_contain_text("429")
        await screenshot(
            page, f"agent-over-budget-{'phone' if viewport['width'] < 500 else 'desktop'}"
        )
