"""Browser fixtures: Debian's Chromium driven by Playwright, a live app on the real sandbox."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from playwright.async_api import Browser, BrowserContext, Page, async_playwright, expect

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.config import Settings
from sstools.sandbox import Sandbox
from sstools.testing import CHROMIUM, CHROMIUM_ARGS, LiveServer, Script, ScriptedChatModel
from tests.conftest import make_settings, seed_users
from tests.integration.deploy_support import Superset, restore, superset  # noqa: F401  (fixtures)

CHROMIUM_INSTALLED = Path(CHROMIUM).exists()

# An expectation waits for what the page must show, up to this long: a plan made against a real
# Superset on a loaded 2-core machine outlasts Playwright's 5 s, and a met one returns at once.
expect.set_options(timeout=30_000)


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Browser]:
    if not CHROMIUM_INSTALLED:
        pytest.fail(f"{CHROMIUM} is missing: `make browser` installs Debian's chromium")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        await browser.close()


@pytest.fixture
async def settings(sandbox: Sandbox, tmp_path: Path) -> Settings:
    settings = make_settings(tmp_path, sandbox.settings.environments_file.resolve())
    await seed_users(settings)
    return settings


class Site:
    """A live app with a scripted model, and signed-in browser tabs on it."""

    def __init__(
        self, server: LiveServer, model: ScriptedChatModel, settings: Settings, browser: Browser
    ) -> None:
        self.server, self.model, self.settings, self.browser = server, model, settings, browser
        self.url = server.url
        self.dialogs: list[str] = []
        self._pending: set[asyncio.Task[None]] = set()
        self.console_errors: list[str] = []

    async def context(self, role: Role = Role.engineer) -> BrowserContext:
        context = await self.browser.new_context(
            locale="ru-RU", viewport={"width": 1280, "height": 900}
        )
        token = issue_token(self.settings, Principal(username=role.value, role=role))
        await context.add_cookies(
            [
                {
                    "name": "sstools_session",
                    "value": token,
                    "url": self.url,
                    "httpOnly": True,
                    "sameSite": "Lax",
                },
                {
                    "name": "sstools_csrf",
                    "value": secrets.token_urlsafe(16),
                    "url": self.url,
                    "sameSite": "Strict",
                },
            ]
        )
        return context

    async def page(
        self, path: str, role: Role = Role.engineer, context: BrowserContext | None = None
    ) -> Page:
        page = await (context or await self.context(role)).new_page()
        page.on("dialog", lambda dialog: self._dialog(dialog))
        page.on(
            "console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None
        )
        await page.goto(self.url + path)
        return page

    def _dialog(self, dialog: Any) -> None:
        # An XSS that fires opens a dialog: record it, dismiss it, let the test fail cleanly.
        self.dialogs.append(dialog.message)
        task = asyncio.ensure_future(dialog.dismiss())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)


@pytest.fixture
def site(settings: Settings, browser: Browser) -> Callable[..., Any]:
    @asynccontextmanager
    async def open_site(
        script: Script,
        port: int | None = None,
        model: ScriptedChatModel | None = None,
        routes: Callable[[FastAPI], None] | None = None,
    ) -> AsyncIterator[Site]:
        model = model or ScriptedChatModel(script=script)
        app = create_app(settings, chat_model=model)
        if routes is not None:  # a test's own route on the same app (e.g. starting a task)
            routes(app)
        with LiveServer(app, port=port) as server:
            yield Site(server, model, settings, browser)

    return open_site


async def ask(page: Page, text: str) -> None:
    await page.fill("#message", text)
    await page.click("#send")


async def screenshot(page: Page, name: str) -> None:
    """Kept for people to look at when SSTOOLS_SCREENSHOTS names a folder (docs/screenshots)."""
    folder = os.environ.get("SSTOOLS_SCREENSHOTS")
    if folder:
        await page.screenshot(path=f"{folder}/{name}.png")


async def twin(clients: Superset, env_id: str) -> tuple[str, int]:
    """ss-dev's dashboard 10 in ``env_id`` (matched by UUID): its UUID and its id there."""
    source = await clients("ss-dev").find_dashboard("id", 10)
    assert source is not None
    found = await clients(env_id).find_dashboard("uuid", source[0])
    assert found is not None, f"{env_id} lacks ss-dev's dashboard 10: is the sandbox seeded?"
    return source[0], found[1].id


async def drift(clients: Superset, env_id: str) -> str:
    """A hotfix in ``env_id`` on ss-dev's dashboard 10, so a deploy from ss-dev has something
    to change (the seeded copies are equal: a deploy of them changes nothing and asks nothing).
    Call ``restore(env_id)`` first. Returns the CSS written."""
    _, target_id = await twin(clients, env_id)
    css = f"/* a hotfix made in {env_id} */"
    await clients(env_id).put_json(f"/api/v1/dashboard/{target_id}", {"css": css})
    return css
