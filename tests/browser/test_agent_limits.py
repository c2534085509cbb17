"""The /agent page says why the server refused, in the server's own words (caps, issue 7)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import expect

from sstools.agent import texts
from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.config import Settings
from sstools.sandbox import Sandbox
from sstools.testing import answer
from tests.browser.conftest import ask, screenshot
from tests.conftest import make_settings, seed_users


@pytest.fixture
async def settings(sandbox: Sandbox, tmp_path: Path) -> Settings:
    """One stored conversation per user, one run at a time."""
    settings = make_settings(
        tmp_path,
        sandbox.settings.environments_file.resolve(),
        agent_conversations_per_user=1,
        agent_runs_per_user=1,
    )
    await seed_users(settings)
    return settings


async def test_a_user_at_the_conversation_cap_is_told_what_to_do(site: Any) -> None:
    async with site(answer("ок")) as s:
        token = issue_token(s.settings, Principal(username="engineer", role=Role.engineer))
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=s.url, headers=headers) as client:
            assert (await client.post("/api/agent/conversations")).status_code == 201
        page = await s.page("/agent?envId=ss-dev", Role.engineer)
        await ask(page, "привет")
        await expect(page.locator("#transcript .status.error")).to_have_text(
            texts.TOO_MANY_CONVERSATIONS.format(limit=1)
        )
        await expect(page.locator(".msg.user")).to_have_count(0)  # nothing was sent
        await screenshot(page, "agent-conversation-cap")
