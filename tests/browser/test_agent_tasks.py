"""Task progress lines on /agent in Chromium: a real deploy followed to its end, and a gated task
(a workflow of this module on the page's own TaskEngine) followed step by step after a reload."""

from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from playwright.async_api import Page, expect
from pydantic import BaseModel

from sstools.config import Settings
from sstools.http.auth import CurrentUser
from sstools.tasks import TaskFailed, TaskKind, task_step, task_workflow
from sstools.testing import answer
from tests.browser.conftest import ask, screenshot, twin
from tests.integration.deploy_support import Restore, Superset

AGENT = "/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/dashboards/10"
STAGING_EDIT = "/* a hotfix made in staging */"
GATE_TIMEOUT_S = 60.0
# Every text a task line has shown, in order: the line changes faster than a test can look.
RECORD_TASK_TEXTS = """() => {
  window.__taskTexts = [];
  new MutationObserver(() => {
    for (const line of document.querySelectorAll(".task-line .task-text")) {
      const seen = window.__taskTexts;
      if (seen[seen.length - 1] !== line.textContent) seen.push(line.textContent);
    }
  }).observe(document.getElementById("transcript"), {
    childList: true, subtree: true, characterData: true,
  });
}"""


# -- a gated workflow: each step waits for its flag file, so the test says when it moves on -------


def _wait_for(folder: str, step: int) -> int:
    deadline = time.monotonic() + GATE_TIMEOUT_S
    while not (Path(folder) / f"go-{step}").exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"step {step} was never let through")
        time.sleep(0.02)
    return step


@task_workflow
def gated_migration(task_id: str, folder: str, titles: list[str]) -> dict[str, object]:
    """A migration's shape: connectivity, then one import per dashboard, each step gated."""
    total = 1 + len(titles)
    task_step(task_id, 1, total, "проверка подключения к базам цели", _wait_for, folder, 1)
    for index, title in enumerate(titles, start=2):
        task_step(task_id, index, total, f"импорт «{title}»", _wait_for, folder, index)
    return {"imported": titles, "not_imported": []}


@task_workflow
def failing_migration(task_id: str, titles: list[str]) -> dict[str, object]:
    """Imports the first dashboard, then the target stops answering: a partial report."""
    raise TaskFailed(
        f"импорт «{titles[1]}» не удался: цель недоступна",
        {"imported": titles[:1], "not_imported": titles[1:]},
    )


@task_workflow
def finished_validation(task_id: str) -> dict[str, object]:
    """A check that found one error and two warnings."""
    return {"counts": {"error": 1, "warning": 2, "info": 0}, "findings": []}


class StartBody(BaseModel):
    folder: str
    fail: bool = False
    validation: bool = False


TITLES = ["Energy KPIs", "Executive Summary"]


def start_route(app: FastAPI) -> None:
    """``POST /test/tasks``: a task on the app's own engine, as the deploy routes start theirs."""

    @app.post("/test/tasks")
    async def start(body: StartBody, user: CurrentUser) -> dict[str, str]:
        if body.validation:
            checked = await app.state.services.tasks.start(
                TaskKind.validation,
                env_id="ss-dev",
                source=None,
                objects=TITLES[:1],
                object_keys=[f"test:{uuid.uuid4().hex}"],
                started_by=user.username,
                workflow=finished_validation,
                args=(),
            )
            return {"id": checked.id}
        workflow: Any = failing_migration if body.fail else gated_migration
        task = await app.state.services.tasks.start(
            TaskKind.migration,
            env_id="staging",
            source="ss-dev",
            objects=TITLES,
            object_keys=[f"test:{uuid.uuid4().hex}"],
            started_by=user.username,
            workflow=workflow,
            args=(TITLES,) if body.fail else (body.folder, TITLES),
        )
        return {"id": task.id}


def _open_gates(folder: Path) -> None:
    # A failed test must not leave a workflow blocked in the server it is about to stop.
    for step in range(1, len(TITLES) + 2):
        (folder / f"go-{step}").touch()


async def _api(page: Page, url: str) -> httpx.AsyncClient:
    cookies = {c["name"]: c["value"] for c in await page.context.cookies()}
    return httpx.AsyncClient(
        base_url=url,
        cookies=cookies,
        headers={"X-CSRF-Token": cookies["sstools_csrf"]},
        timeout=60,
    )


async def _show_after_reload(page: Page, task_ids: list[str]) -> None:
    """The tab had seen these tasks start (as a tool_result with task_id does) and reloads."""
    key = "sstools.conversation:dashboard:10:/dashboards/10:tasks"
    await page.evaluate("([k, v]) => sessionStorage.setItem(k, v)", [key, json.dumps(task_ids)])
    await page.reload()
    await page.evaluate(RECORD_TASK_TEXTS)


async def _conversation(s: Any) -> Page:
    """A dashboard chat that has said something (a conversation the tab remembers tasks in)."""
    page: Page = await s.page(AGENT)
    await ask(page, "перенеси дашборды в staging")
    await expect(page.locator(".msg.assistant")).to_have_text(
        re.compile(r"^ок\s+Изменений не было\.\s*$")
    )
    return page


async def test_a_running_task_resumes_after_reload_advances_and_ends_done(
    site: Any, tmp_path: Path
) -> None:
    async with site(answer("ок"), routes=start_route) as s:
        page = await _conversation(s)
        async with await _api(page, s.url) as api:
            task_id = (await api.post("/test/tasks", json={"folder": str(tmp_path)})).json()["id"]
        try:
            await _follow_step_by_step(page, task_id, tmp_path)
        finally:
            _open_gates(tmp_path)
    assert s.console_errors == []


async def _follow_step_by_step(page: Page, task_id: str, tmp_path: Path) -> None:
    await _show_after_reload(page, [task_id])
    polls: list[float] = []
    page.on("request", lambda r: polls.append(time.monotonic()) if task_id in r.url else None)

    line = page.locator(f'.task-line[data-task-id="{task_id}"]')
    await expect(line).to_have_text(
        "Задача «миграция»: шаг 1 из 3 — проверка подключения к базам цели"
    )
    await expect(line.locator("progress")).to_be_visible()
    await screenshot(page, "task-running")
    (tmp_path / "go-1").touch()
    await expect(line).to_have_text("Задача «миграция»: шаг 2 из 3 — импорт «Energy KPIs»")
    (tmp_path / "go-2").touch()
    await expect(line).to_have_text("Задача «миграция»: шаг 3 из 3 — импорт «Executive Summary»")
    (tmp_path / "go-3").touch()
    await expect(line).to_have_text("Задача «миграция»: выполнена")
    await expect(line).to_have_attribute("data-status", "succeeded")
    await expect(line.locator("progress")).to_be_hidden()
    await screenshot(page, "task-done")
    ended = len(polls)
    await page.wait_for_timeout(2500)
    assert len(polls) == ended  # the line stopped polling once the task had ended


async def test_failed_and_cancelled_tasks_end_their_lines(site: Any, tmp_path: Path) -> None:
    async with site(answer("ок"), routes=start_route) as s:
        page = await _conversation(s)
        async with await _api(page, s.url) as api:
            try:
                await _fail_and_cancel(page, api, tmp_path)
            finally:
                _open_gates(tmp_path)  # the cancelled workflow's step ends; no later step runs


async def _fail_and_cancel(page: Page, api: httpx.AsyncClient, tmp_path: Path) -> None:
    failed = (await api.post("/test/tasks", json={"folder": "", "fail": True})).json()
    cancelled = (await api.post("/test/tasks", json={"folder": str(tmp_path)})).json()
    await _show_after_reload(page, [failed["id"], cancelled["id"]])
    failed_line = page.locator(f'.task-line[data-task-id="{failed["id"]}"]')
    await expect(failed_line).to_have_text(
        "Задача «миграция»: ошибка: импорт «Executive Summary» не удался: цель недоступна"
        " (импортировано: 1, не импортировано: 1)"
    )
    await expect(failed_line).to_have_attribute("title", "Executive Summary")
    cancelled_line = page.locator(f'.task-line[data-task-id="{cancelled["id"]}"]')
    await expect(cancelled_line).to_contain_text("шаг 1 из 3")
    response = await api.post(f"/api/tasks/{cancelled['id']}/cancel")
    assert response.status_code == 200, response.text
    await expect(cancelled_line).to_have_text("Задача «миграция»: отменена")
    await screenshot(page, "task-failed-cancelled")


def deploy_then_report(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    if isinstance(messages[-1], ToolMessage):
        return AIMessage(content="Выкатка запущена, слежу за задачей.")
    call = {"name": "deploy_dashboard", "args": {"target_env_id": "staging"}, "id": "call_1"}
    return AIMessage(content="", tool_calls=[call])


async def test_a_real_deploy_card_shows_the_plan_and_its_task_line_ends_done(
    site: Any, settings: Settings, superset: Superset, restore: Restore
) -> None:
    """ss-dev → staging on the sandbox, after a hotfix in staging makes the two differ; staging
    keeps snapshots here, so the finished deploy can be rolled back from its own line."""
    settings.snapshot_stages = ["staging", "prod"]
    await restore("staging")
    staging_uuid, staging_id = await twin(superset, "staging")
    await superset("staging").put_json(f"/api/v1/dashboard/{staging_id}", {"css": STAGING_EDIT})
    async with site(deploy_then_report) as s:
        page = await s.page(AGENT)
        async with await _api(page, s.url) as api:
            body = {
                "dashboard_ids": [10],
                "source": {"env_id": "ss-dev"},
                "target_env_id": "staging",
            }
            plan = (await api.post("/api/deploy/plan", json=body)).json()
        await page.evaluate(RECORD_TASK_TEXTS)
        await ask(page, "разверни этот дашборд в staging")
        card = page.locator(".card.tone-info")
        await expect(card.locator(".card-impact")).to_contain_text("1 дашборд будет изменён")
        await expect(card.locator(".card-objects li")).to_contain_text(
            ["дашборд «Отчёт по энергопотреблению»: изменить (css)"]
        )
        digest = card.locator(".card-digest")
        await expect(digest).to_have_text(f"План: {plan['digest'][:12]}…")
        assert re.fullmatch(r"[0-9a-f]{64}", plan["digest"])
        assert plan["digest"] in (await digest.get_attribute("title") or "")
        await screenshot(page, "card-plan")

        await card.locator("button", has_text="Подтвердить").click()
        line = page.locator(".task-line")
        await expect(line.locator(".task-text")).to_have_text(
            "Задача «выкатка»: выполнена", timeout=60_000
        )
        seen: list[str] = await page.evaluate("window.__taskTexts")
        assert any("шаг" in text or "в очереди" in text for text in seen[:-1]), seen
        await screenshot(page, "task-deploy-done")
        await page.reload()
        line = page.locator(".task-line")
        await expect(line.locator(".task-text")).to_have_text("Задача «выкатка»: выполнена")
        # The deploy took a snapshot: its own line offers the rollback, asked in words, not sent.
        task_id = await line.get_attribute("data-task-id")
        assert task_id is not None
        await line.locator("button.task-rollback", has_text="Откатить…").click()
        await expect(page.locator("#message")).to_have_value(f"откати выкатку {task_id[:8]}")
        await screenshot(page, "task-line-rollback")
        await page.set_viewport_size({"width": 390, "height": 844})
        await expect(line.locator("button.task-rollback")).to_be_in_viewport()
        await screenshot(page, "task-line-rollback-phone")
        await expect(page.locator(".card")).to_have_count(1)  # nothing was sent

    changed = await superset("staging").find_dashboard("uuid", staging_uuid)
    assert changed is not None
    body = await superset("staging").get_json(f"/api/v1/dashboard/{changed[1].id}")
    assert STAGING_EDIT not in str(body["result"]["css"] or "")  # dev's version is in staging


async def test_a_finished_check_says_what_it_found_with_its_end(site: Any) -> None:
    """Issue 33 §7: the end of a validation says what it found, once."""
    async with site(answer("ок"), routes=start_route) as s:
        page = await _conversation(s)
        async with await _api(page, s.url) as api:
            started = await api.post("/test/tasks", json={"folder": "", "validation": True})
        task_id = started.json()["id"]
        await _show_after_reload(page, [task_id])
        ended = page.locator(f'.task-ended[data-task-id="{task_id}"]')
        await expect(ended).to_have_text(
            re.compile(r": выполнена\. Найдено ошибок: 1, предупреждений: 2\.$")
        )
        await expect(page.locator(".task-ended")).to_have_count(1)
        await screenshot(page, "task-validation-found")
    assert s.console_errors == []
