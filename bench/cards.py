"""SC-002: from a `confirm_required` event arriving in the page to its card painted.

The page marks the time in EventSource's onmessage and measures at the next animation frame after
the card is in the DOM (``window.__sstoolsCardTimings``). Over 50 cards in Debian's Chromium this
prints p50/p95 against the goal (100 ms) and the spec's bound (200 ms). Run: ``make bench``.
"""

from __future__ import annotations

import asyncio
import secrets
import statistics
import tempfile
from pathlib import Path

import yaml
from playwright.async_api import async_playwright

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import add_user
from sstools.config import Settings
from sstools.storage.db import create_engine, migrate, session_factory
from sstools.testing import CHROMIUM, CHROMIUM_ARGS, LiveServer, ScriptedChatModel, call_tool

CARDS = 50


async def run(folder: Path) -> list[float]:
    # The cards need environments but no Superset: nothing is approved, so no tool runs.
    (folder / "secrets.env").write_text("PW=x\n")
    (folder / "environments.yaml").write_text(
        yaml.safe_dump(
            {
                "secrets_file": "secrets.env",
                "environments": [
                    {
                        "id": env,
                        "name": env,
                        "stage": stage,
                        "url": "http://127.0.0.1:9",
                        "username": "svc",
                        "password_env": "PW",
                    }
                    for env, stage in (("ss-dev", "dev"), ("prod", "prod"))
                ],
            }
        )
    )
    settings = Settings(
        _env_file=None,
        database_url=f"sqlite:///{folder / 'db.sqlite'}",
        environments_file=folder / "environments.yaml",
        checkpoints_file=folder / "checkpoints.db",
    )
    migrate(settings.database_url)
    # A token is honoured only for a user on record (its version is checked on every request).
    engine = create_engine(settings.database_url)
    async with session_factory(engine)() as session:
        await add_user(session, "engineer", Role.engineer, secrets.token_urlsafe(16))
    await engine.dispose()
    model = ScriptedChatModel(script=call_tool("deploy_dashboard", {"target_env_id": "prod"}))
    with LiveServer(create_app(settings, chat_model=model)) as server:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = await browser.new_context()
            token = issue_token(settings, Principal(username="engineer", role=Role.engineer))
            await context.add_cookies(
                [
                    {"name": "sstools_session", "value": token, "url": server.url},
                    {"name": "sstools_csrf", "value": secrets.token_urlsafe(8), "url": server.url},
                ]
            )
            page = await context.new_page()
            await page.goto(
                f"{server.url}/agent?objectType=dashboard&objectId=10&envId=ss-dev"
                "&route=/dashboards/10"
            )
            for number in range(1, CARDS + 1):
                await page.fill("#message", f"выкати #{number}")
                await page.click("#send")
                card = page.locator(".card").nth(number - 1)
                await card.wait_for()
                await card.locator("button", has_text="Отклонить").click()
                await page.locator(".status.cancelled").nth(number - 1).wait_for()
                await page.locator("#composer[data-busy=false]").wait_for()
            timings: list[float] = await page.evaluate("window.__sstoolsCardTimings")
            await browser.close()
    return timings


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        timings = asyncio.run(run(Path(folder)))
    quantiles = statistics.quantiles(timings, n=20)
    p50, p95 = statistics.median(timings), quantiles[18]
    print(
        f"SC-002 card paint over {len(timings)} cards: p50 {p50:.1f} ms, p95 {p95:.1f} ms, "
        f"max {max(timings):.1f} ms"
    )
    print(f"p95 vs goal 100 ms: {p95 / 100:.2f}×; vs spec bound 200 ms: {p95 / 200:.2f}×")


if __name__ == "__main__":
    main()
