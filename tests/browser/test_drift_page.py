"""«Расхождения» and the home page's fleet in Chromium on the real sandbox: the sandbox's own
drift (dev's «Energy KPIs», edited after its release) shows as staging's one drifted dashboard,
with a link to the compare page; the home page says each environment's Superset version and its
drift count linking to /drift; desktop and phone, no sideways scroll."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from playwright.async_api import expect

from sstools.auth.roles import Role
from sstools.sandbox.seed import DRIFTED_DASHBOARD
from sstools.testing import answer
from tests.browser.conftest import screenshot
from tests.browser.test_tasks_pages import DESKTOP, PHONE, _api, _fits, _nothing_raw
from tests.integration.deploy_support import Restore, Superset

CHECK_S = 300.0  # a cold check of the whole sandbox: every dashboard's plans and exports


async def test_the_drift_page_names_the_behind_dashboard_and_the_home_page_counts_it(
    site: Any,
) -> None:
    async with site(answer("ок")) as s:
        page = await s.page("/")
        api = await _api(page, s.url)
        async with api:
            checked = await api.post("/api/drift/check", timeout=CHECK_S)
        assert checked.status_code == 200, checked.text

        await page.goto(f"{s.url}/drift")
        staging = page.locator('.drift-env[data-env-id="staging"]')
        row = staging.locator(".drift-row", has_text=DRIFTED_DASHBOARD)
        # Freshly seeded, staging is behind dev; after a test imported staging's copy back, its
        # newer `changed_on` reads as an edit made there (docs/drift.md): one drift either way.
        await expect(row.locator(".drift-state")).to_have_text(
            re.compile(r"^(отстаёт от источника|изменён прямо здесь)\s*$")
        )
        await expect(staging.locator(".drift-row")).to_have_count(1)
        await expect(staging).to_contain_text("Источник: Superset dev и ветка main в git")
        await expect(page.locator('.drift-env[data-env-id="ss-dev"]')).to_contain_text(
            "Первая стадия: сравнивается только с веткой main в git"
        )
        dev_row = page.locator(
            '.drift-env[data-env-id="ss-dev"] .drift-row', has_text=DRIFTED_DASHBOARD
        )
        await expect(dev_row).to_have_count(0)  # new work in dev is not drift in dev
        await _nothing_raw(page)
        for size, name in ((DESKTOP, "drift-1280"), (PHONE, "drift-390")):
            await page.set_viewport_size(size)
            await _fits(page)
            await screenshot(page, name)
        await page.set_viewport_size(DESKTOP)

        compare = row.locator("a.drift-compare")
        href = await compare.get_attribute("href")
        assert href is not None
        assert href.endswith("&target=staging")
        assert "env_id=ss-dev" in href
        await compare.click()
        await expect(page.locator("h1")).to_contain_text(DRIFTED_DASHBOARD)
        await expect(page.locator(".compare-object").first).to_contain_text("изменить")

        # The home page: versions, and the drift count linking to that environment's drift.
        await page.goto(f"{s.url}/")
        fleet = page.locator('.fleet li[data-env-id="staging"]')
        await expect(fleet).to_contain_text("Superset 6.1.0")
        link = fleet.locator("a.fleet-drift-link")
        await expect(link).to_have_text("Расхождения: 1")
        assert await link.get_attribute("href") == "/drift?env_id=staging"
        await expect(page.locator(".failed-validations h2")).to_have_text("Проверки с ошибками")
        await _nothing_raw(page)
        for size, name in ((DESKTOP, "home-1280"), (PHONE, "home-390")):
            await page.set_viewport_size(size)
            await _fits(page)
            await screenshot(page, name)
        await page.set_viewport_size(DESKTOP)
        await link.click()
        await expect(page.locator(".drift-env")).to_have_count(1)
        await expect(page.locator(".drift-env")).to_contain_text(DRIFTED_DASHBOARD)
    assert s.console_errors == []


async def test_the_first_drift_page_paints_at_once_and_shows_the_report_when_checked(
    site: Any,
) -> None:
    """No report yet: the page answers at once with «Идёт первая проверка» and the check's
    progress, then shows the report by itself (issue 33 §5: it was blank for over 30 s)."""
    async with site(answer("ок")) as s:
        page = await s.page("/")
        began = time.perf_counter()
        await page.goto(f"{s.url}/drift")
        painted = time.perf_counter() - began
        await expect(page.locator(".drift-first")).to_contain_text("Идёт первая проверка")
        await expect(page.locator(".drift-progress")).to_be_visible()
        for size, name in ((DESKTOP, "drift-first-1280"), (PHONE, "drift-first-390")):
            await page.set_viewport_size(size)
            await screenshot(page, name)
            await _fits(page)
        await page.set_viewport_size(DESKTOP)
        await expect(page.locator(".drift-checked")).to_contain_text(
            "проверено", timeout=CHECK_S * 1000
        )
        await expect(page.locator(".drift-env")).to_have_count(3)
        assert painted < 5, painted  # a page, not a check (the bench measures it)
    assert s.console_errors == []


async def test_check_now_is_a_post_with_the_csrf_header_then_the_page_reloads(site: Any) -> None:
    """«Проверить сейчас» is a button that POSTs (issue 32 §5): no link another site could make
    a browser follow checks the fleet."""
    async with site(answer("ок")) as s:
        page = await s.page("/drift?env_id=ss-dev")
        await expect(page.locator(".drift-checked")).to_contain_text(
            "проверено", timeout=CHECK_S * 1000
        )
        asked: list[tuple[str, str | None]] = []
        page.on(
            "request",
            lambda r: (
                asked.append((r.method, r.headers.get("x-csrf-token")))
                if "/api/drift/check" in r.url
                else None
            ),
        )
        async with page.expect_navigation(timeout=CHECK_S * 1000):  # the page reloads
            await page.locator("button.drift-check-now").click()
        await expect(page.locator(".drift-env")).to_have_count(1)
        assert [method for method, _ in asked] == ["POST"]
        assert asked[0][1]  # the CSRF header rode along
        assert await page.locator("a.drift-check-now").count() == 0
    assert s.console_errors == []


async def test_after_a_deploy_drift_the_overview_and_compare_agree_without_waiting_for_the_watch(
    site: Any, superset: Superset, restore: Restore
) -> None:
    """Issue 33 §5: staging «отстаёт» on /drift until the next 15-minute check after a deploy,
    while «Сравнить» said «Различий нет». Now the deploy's environments are checked again on the
    next look: /drift drops the row by itself, the overview agrees, and so does «Сравнить»."""
    await restore("staging")
    query = {
        "columns": ["id"],
        "filters": [{"col": "dashboard_title", "opr": "eq", "value": DRIFTED_DASHBOARD}],
    }
    found = (await superset("ss-dev").get_json("/api/v1/dashboard/", query=query))["result"]
    dev_id = int(found[0]["id"])
    async with site(answer("ок")) as s:
        page = await s.page("/", Role.engineer)
        api = await _api(page, s.url)
        async with api:
            assert (await api.post("/api/drift/check", timeout=CHECK_S)).status_code == 200
            await page.goto(f"{s.url}/drift?env_id=staging")
            behind = page.locator(".drift-row", has_text=DRIFTED_DASHBOARD)
            await expect(behind).to_have_count(1)
            compare = await behind.locator("a.drift-compare").get_attribute("href")
            assert compare is not None

            body = {"dashboard_ids": [dev_id], "source": {"env_id": "ss-dev"}}
            body["target_env_id"] = "staging"
            plan = await api.post("/api/deploy/plan", json=body)
            assert plan.status_code == 200, plan.text
            started = await api.post("/api/deploy", json={**body, "digest": plan.json()["digest"]})
            assert started.status_code == 202, started.text
            task_id = started.json()["id"]
            for _ in range(600):
                task = (await api.get(f"/api/tasks/{task_id}")).json()
                if task["status"] in ("succeeded", "failed", "cancelled"):
                    break
                await asyncio.sleep(0.2)
            assert task["status"] == "succeeded", task

        await page.goto(f"{s.url}/drift?env_id=staging")  # the last report at once, then fresh
        await expect(behind).to_have_count(0, timeout=CHECK_S * 1000)
        await screenshot(page, "drift-after-deploy-1280")
        await page.goto(f"{s.url}/")
        fleet = page.locator('.fleet li[data-env-id="staging"] a.fleet-drift-link')
        await expect(fleet).to_have_text("Расхождений нет")
        await page.set_viewport_size(PHONE)
        await screenshot(page, "home-after-deploy-390")
        await page.set_viewport_size(DESKTOP)
        await page.goto(f"{s.url}{compare}")
        await expect(page.locator("main")).to_contain_text("Различий нет")
    assert s.console_errors == []
