"""«История версий» in Chromium on the real sandbox, with the offline planner: staging's
«Отчёт по энергопотреблению» committed to git, backed up, then edited; the panel lists the
points newest first in words, and «Вернуть к этой версии…» on the commit opens the agent with a
request that, sent and approved on its card, brings staging's CSS back to the commit's. An
analyst sees the points without the link. Staging is put back exactly afterwards."""

from __future__ import annotations

import os
import re
from urllib.parse import parse_qs, urlsplit

import httpx
from playwright.async_api import Browser, Page, ViewportSize, expect

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing import LiveServer, ScriptedChatModel, answer
from tests.browser.conftest import Site
from tests.conftest import AuthHeaders
from tests.integration.deploy_support import Superset, wait_for_task
from tests.integration.test_timeline import (
    EDITED_CSS,
    ENV,
    POINT_CSS,
    _css,
    _set_css,
    staging_put_back,
)

PHONE = ViewportSize(width=390, height=844)
DESKTOP = ViewportSize(width=1280, height=900)


async def _panel_screenshots(page: Page) -> None:
    """The panel at 1280×900 and 390×844 (docs/screenshots); no sideways scroll on either."""
    folder = os.environ.get("SSTOOLS_SCREENSHOTS")
    for size in (DESKTOP, PHONE):
        await page.set_viewport_size(size)
        sideways = await page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert sideways <= 0, f"{sideways}px of sideways scroll at {size['width']}"
        if folder:
            await page.locator("#timeline").screenshot(
                path=f"{folder}/timeline-{size['width']}.png"
            )
    await page.set_viewport_size(DESKTOP)


async def test_the_timeline_lists_the_points_and_restores_a_commit_through_the_agent(
    settings: Settings, browser: Browser, auth: AuthHeaders, superset: Superset
) -> None:
    own = settings.model_copy(update={"snapshot_stages": ["staging", "prod"]})
    async with staging_put_back(superset) as (staging, report):
        with LiveServer(create_app(own)) as server:  # no model: the offline planner
            site = Site(server, ScriptedChatModel(script=answer("—")), own, browser)
            async with httpx.AsyncClient(base_url=server.url, timeout=60) as api:
                await _set_css(staging, report, POINT_CSS)
                committed = await api.post(
                    "/api/git/commits",
                    json={"env_id": ENV, "dashboard_ids": [report], "message": "tiles reordered"},
                    headers=auth(Role.engineer),
                )
                assert committed.status_code == 200, committed.text
                commit = committed.json()["commit"]["id"]
                started = await api.post(
                    "/api/backups", json={"env_id": ENV}, headers=auth(Role.admin)
                )
                backup = await wait_for_task(api, auth, started.json()["id"])
                assert backup["status"] == "succeeded", backup
                await _set_css(staging, report, EDITED_CSS)

            page = await site.page(f"/dashboards/{report}?env_id={ENV}", role=Role.engineer)
            panel = page.locator("#timeline")
            await expect(panel.locator("h2")).to_have_text("История версий")
            kinds = panel.locator("tr.point .point-kind")
            # Newest first: staging's edit just now, the backup, the commit; the others' copies.
            await expect(kinds.first).to_have_text("сейчас в окружении")
            texts = await kinds.all_inner_texts()
            assert texts.index("резервная копия") < texts.index("коммит в git"), texts
            git_row = panel.locator("tr.point-git").first
            await expect(git_row).to_contain_text(f"«tiles reordered», коммит {commit[:7]}")
            await expect(git_row.locator("td[data-label='Кто']")).to_have_text("engineer")
            assert re.search(r"\d{1,2} [а-я]+ \d{4}, \d{2}:\d{2}", await git_row.inner_text())
            # An engineer may deploy, not restore a backup (an admin's): no link to a refusal.
            await expect(panel.locator("tr.point-backup a.action-restore")).to_have_count(0)
            await expect(panel.locator("tr.point-live a.action-restore")).to_have_count(0)
            await _panel_screenshots(page)

            analyst = await site.page(f"/dashboards/{report}?env_id={ENV}", role=Role.analyst)
            await expect(analyst.locator("#timeline tr.point-git").first).to_be_visible()
            await expect(analyst.locator("#timeline a.action-restore")).to_have_count(0)
            admin = await site.page(f"/dashboards/{report}?env_id={ENV}", role=Role.admin)
            backup_link = admin.locator("#timeline tr.point-backup a.action-restore").first
            await expect(backup_link).to_have_text("Вернуть к этой версии…")
            backup_id = backup["result"]["backup_id"]
            href = await backup_link.get_attribute("href") or ""
            prompt = parse_qs(urlsplit(href).query)["prompt"]
            assert prompt == [f"Восстанови {backup_id} в окружение «Superset staging»"]

            await git_row.locator("a.action-restore", has_text="Вернуть к этой версии…").click()
            await expect(page.locator("#message")).to_have_value(
                f"Разверни этот дашборд в окружение «Superset staging» из коммита {commit}"
            )
            await expect(page.locator(".card")).to_have_count(0)  # nothing sent by itself
            await page.click("#send")
            card = page.locator(".card.tone-info")
            await expect(card.locator(".card-impact")).to_contain_text(
                "1 дашборд будет изменён", timeout=30_000
            )
            await expect(card.locator(".card-objects li")).to_contain_text(
                ["дашборд «Отчёт по энергопотреблению»: изменить (css)"]
            )
            await card.locator("button", has_text="Подтвердить").click()
            await expect(page.locator(".task-line .task-text")).to_have_text(
                "Задача «выкатка»: выполнена", timeout=60_000
            )
            assert await _css(staging, report) == POINT_CSS

            # The deploy snapshotted the edit it overwrote: a point too, linking to its task.
            await page.goto(f"{server.url}/dashboards/{report}?env_id={ENV}")
            snapshot = page.locator("#timeline tr.point-snapshot")
            await expect(snapshot).to_have_count(1)
            await expect(snapshot.locator(".point-kind")).to_have_text("снимок перед выкаткой")
            await expect(snapshot.locator("a[href^='/tasks/']")).to_contain_text(
                "«Superset staging»: версия до выкатки"
            )
            await _panel_screenshots(page)
            assert site.console_errors == [], site.console_errors
