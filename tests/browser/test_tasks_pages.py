"""The task pages in Chromium on the real sandbox: a real deploy ss-dev → staging followed live on
/tasks, read on its task page and in the dashboard's history, «Откатить» opening the agent with
the request ready, «Открыть в Superset» pointing at the object in the right environment; the home
page with a stopped environment among the sandbox's; desktop and phone, nothing raw to read.

Staging keeps snapshots here (``SSTOOLS_SNAPSHOT_STAGES``), so the deploy can be rolled back; the
snapshot goes to this test's own git folder, and staging is put back as it was afterwards."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import yaml
from playwright.async_api import Page, ViewportSize, expect

from sstools.agent.offline.planner import OfflinePlanner
from sstools.config import Settings
from sstools.sandbox import Sandbox
from sstools.testing import ScriptedChatModel, answer
from tests.browser.conftest import drift, screenshot, twin
from tests.browser.test_agent_tasks import _open_gates, start_route
from tests.conftest import make_settings, seed_users
from tests.integration.deploy_support import Restore, Superset

RAW_ID = re.compile(r"[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
PHONE = ViewportSize(width=390, height=844)
DESKTOP = ViewportSize(width=1280, height=900)
TITLE = "Отчёт по энергопотреблению"  # ss-dev's dashboard 10


@pytest.fixture
async def settings(sandbox: Sandbox, tmp_path: Path) -> Settings:
    """The sandbox's three environments and a fourth that is stopped (nothing on port 9)."""
    fleet_file = sandbox.settings.environments_file.resolve()
    document = yaml.safe_load(fleet_file.read_text())
    document["secrets_file"] = str((fleet_file.parent / document["secrets_file"]).resolve())
    stopped = {**document["environments"][1], "id": "qa", "name": "Superset QA"}
    document["environments"].append({**stopped, "url": "http://127.0.0.1:9"})
    path = tmp_path / "environments.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True))
    settings = make_settings(tmp_path, path, snapshot_stages=["staging", "prod"])
    await seed_users(settings)
    return settings


async def _api(page: Page, url: str) -> httpx.AsyncClient:
    cookies = {c["name"]: c["value"] for c in await page.context.cookies()}
    headers = {"X-CSRF-Token": cookies["sstools_csrf"]}
    return httpx.AsyncClient(base_url=url, cookies=cookies, headers=headers, timeout=120)


async def _start_deploy(api: httpx.AsyncClient) -> str:
    body = {"dashboard_ids": [10], "source": {"env_id": "ss-dev"}, "target_env_id": "staging"}
    plan = await api.post("/api/deploy/plan", json=body)
    assert plan.status_code == 200, plan.text
    started = await api.post("/api/deploy", json={**body, "digest": plan.json()["digest"]})
    assert started.status_code == 202, started.text
    task_id: str = started.json()["id"]
    return task_id


async def _nothing_raw(page: Page) -> None:
    text = await page.locator("main").inner_text()
    assert RAW_ID.findall(text) == [], text


async def _fits(page: Page) -> None:
    sideways = await page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    wide = await page.evaluate(
        """[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right
        > document.documentElement.clientWidth + 1).slice(0, 8).map((e) => e.tagName + '.'
        + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"""
    )
    assert sideways <= 0, f"{page.url}: {sideways}px of sideways scroll on a phone: {wide}"


async def _both_widths(page: Page, name: str, focus: str | None = None) -> None:
    """Screenshots at 1280×900 and 390×844 (``focus`` scrolled into view); no sideways scroll."""
    for size, width in ((DESKTOP, "desktop"), (PHONE, "phone")):
        await page.set_viewport_size(size)
        if focus:
            await page.evaluate(f"document.querySelector('{focus}').scrollIntoView()")
        await _fits(page)
        await screenshot(page, f"{name}-{width}")
    await page.set_viewport_size(DESKTOP)


def _query(link: str | None) -> dict[str, list[str]]:
    assert link is not None
    assert urlsplit(link).path == "/agent"
    return parse_qs(urlsplit(link).query)


async def test_a_real_deploy_is_followed_on_tasks_read_on_its_page_and_in_the_history(
    site: Any, superset: Superset, restore: Restore
) -> None:
    await restore("staging")
    await drift(superset, "staging")
    _, staging_id = await twin(superset, "staging")
    offline = OfflinePlanner(environment_ids=("ss-dev", "staging", "prod", "qa"))
    async with site(None, model=ScriptedChatModel(script=offline)) as s:
        page = await s.page("/tasks")
        async with await _api(page, s.url) as api:
            task_id = await _start_deploy(api)
        short = task_id[:8]

        # /tasks: the new row appears on a reload; its state then follows the task by itself.
        await page.reload()
        row = page.locator("tbody tr", has=page.locator(f'a[href="/tasks/{task_id}"]'))
        await expect(row).to_contain_text(f"выкатка «{TITLE}» {short}")
        await expect(row).to_contain_text("Superset staging Тестирование")
        await expect(row).to_contain_text("Superset dev Разработка")
        await expect(row).to_contain_text("engineer")
        await expect(row.locator(".task-status")).to_have_text("выполнена", timeout=120_000)
        await _nothing_raw(page)
        await _both_widths(page, "tasks")

        # The task page, in words, with links to the dashboard in both environments.
        await row.locator(f'a[href="/tasks/{task_id}"]').click()
        await expect(page.locator("h1")).to_contain_text(f"Выкатка «{TITLE}» Задача {short}")
        result = page.locator(".task-result")
        await expect(result.locator("dt")).to_have_text(["Импортированы", "Снимок"])
        await expect(result.locator("dd").first).to_have_text(f"«{TITLE}»")
        await expect(result.locator("dd").last).to_contain_text("сохранён в git (файлов:")
        staging_link = page.locator('.task-dashboards li[data-env-id="staging"] a.open-superset')
        await expect(staging_link).to_have_attribute(
            "href", f"{superset('staging').env.url}/superset/dashboard/{staging_id}/"
        )
        dev_link = page.locator('.task-dashboards li[data-env-id="ss-dev"] a.open-superset')
        await expect(dev_link).to_have_attribute(
            "href", f"{superset('ss-dev').env.url}/superset/dashboard/10/"
        )
        rollback = await page.locator("a.action-rollback").get_attribute("href")
        assert _query(rollback) == {
            "envId": ["staging"],
            "route": [f"/tasks/{task_id}"],
            "prompt": [f"откати выкатку {short}"],
        }
        await _nothing_raw(page)
        await _both_widths(page, "task")

        # The dashboard's history in ss-dev names the deploy to staging, with «Откатить».
        await page.goto(f"{s.url}/dashboards/10?env_id=ss-dev")
        history = page.locator("#history tr", has=page.locator(f'a[href="/tasks/{task_id}"]'))
        await expect(history).to_contain_text(f"выкатка {short}")
        await expect(history).to_contain_text("Superset dev Разработка")
        await expect(history).to_contain_text("Superset staging Тестирование")
        await expect(history).to_contain_text("выполнена")
        await expect(page.locator(".page-head a.open-superset")).to_have_attribute(
            "href", f"{superset('ss-dev').env.url}/superset/dashboard/10/"
        )
        await _nothing_raw(page)
        await _both_widths(page, "dashboard-history", focus="#history")

        # The home page lists it among the recent tasks, beside the fleet (one stopped).
        await page.goto(f"{s.url}/")
        recent = page.locator(".recent-tasks li", has=page.locator(f'a[href="/tasks/{task_id}"]'))
        await expect(recent).to_contain_text(f"Выкатка «{TITLE}» {short}")
        await expect(page.locator('.fleet li[data-env-id="qa"]')).to_contain_text("недоступно")
        await _nothing_raw(page)
        await _both_widths(page, "home")

        # «Откатить» opens the agent with the request in the box, in staging, and sends nothing.
        await page.goto(f"{s.url}/dashboards/10?env_id=ss-dev")
        await history.locator("a.action-rollback").click()
        await expect(page.locator("#message")).to_have_value(f"откати выкатку {short}")
        assert parse_qs(urlsplit(page.url).query)["envId"] == ["staging"]
        await page.wait_for_timeout(500)
        assert await page.locator(".msg.user").count() == 0
        # One press of send: the rollback card, in staging, for that deploy (issue 33 §1).
        await page.click("#send")
        card = page.locator(".card").first
        await expect(card).to_contain_text("Откат выкатки", timeout=60_000)
        await expect(card.locator(".badge")).to_have_text("Тестирование")
        await expect(card).to_contain_text(short)
        await screenshot(page, "task-rollback-card")
        await card.locator("button", has_text="Отклонить").click()  # staging stays deployed
        await expect(card.locator(".card-stamp")).to_contain_text("Отклонено")
    assert s.console_errors == []


async def test_the_home_page_says_the_stopped_environment_and_the_dataset_links_to_superset(
    site: Any, superset: Superset
) -> None:
    async with site(answer("ок")) as s:
        page = await s.page("/")
        fleet = page.locator(".fleet li")
        await expect(fleet).to_have_count(4)
        for env_id in ("ss-dev", "staging", "prod"):
            await expect(page.locator(f'.fleet li[data-env-id="{env_id}"]')).to_contain_text(
                "✓ доступно"
            )
        await expect(page.locator('.fleet li[data-env-id="qa"]')).to_contain_text(
            "Superset QA Тестирование · ✗ недоступно"
        )
        await _nothing_raw(page)
        await page.set_viewport_size(PHONE)
        await _fits(page)

        await page.goto(f"{s.url}/settings")
        await expect(page.locator(".model-name")).to_have_text("без языковой модели")
        await expect(page.locator('.fleet li[data-env-id="qa"]')).to_contain_text(
            "http://127.0.0.1:9 · ✗ недоступно"
        )

        await page.goto(f"{s.url}/datasets/1?env_id=staging")
        await expect(page.locator(".page-head a.open-superset")).to_have_attribute(
            "href",
            f"{superset('staging').env.url}/explore/?datasource_type=table&datasource_id=1",
        )
        # In words: the review state and what uses the dataset (issue 33 §8).
        facts = page.locator(".panel dl").first
        await expect(facts).to_contain_text(re.compile(r"Ревью\s*не проверялся"))
        await expect(facts).to_contain_text(re.compile(r"графиков: \d+, дашбордов: \d+"))
        await _both_widths(page, "dataset")
    assert s.console_errors == []


async def test_an_unfinished_task_is_followed_live_on_the_list_and_its_page(
    site: Any, tmp_path: Path
) -> None:
    """A gated migration (the agent page's test workflow): each step shows without a reload."""
    async with site(answer("ок"), routes=start_route) as s:
        page = await s.page("/tasks")
        async with await _api(page, s.url) as api:
            started = await api.post("/test/tasks", json={"folder": str(tmp_path)})
        task_id = started.json()["id"]
        try:
            await page.reload()
            state = page.locator(f'.task-state[data-task-id="{task_id}"]')
            await expect(state.locator(".task-status")).to_have_text("выполняется")
            progress = state.locator(".task-progress")
            await expect(progress).to_have_text("шаг 1 из 3: проверка подключения к базам цели")
            (tmp_path / "go-1").touch()
            await expect(progress).to_have_text("шаг 2 из 3: импорт «Energy KPIs»")
            task_page = await s.page(f"/tasks/{task_id}", context=page.context)
            for step in (2, 3):
                (tmp_path / f"go-{step}").touch()
            await expect(state.locator(".task-status")).to_have_text("выполнена")
            await expect(progress).to_have_text("")
            # The task page reloads once its task has ended: the result, in words.
            await expect(task_page.locator(".task-result dd").first).to_have_text(
                "«Energy KPIs», «Executive Summary»"
            )
        finally:
            _open_gates(tmp_path)
    assert s.console_errors == []
