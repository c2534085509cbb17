"""The /agent transcript tells one truth, live and after a reload, on the real sandbox (issue 20
§3 and §1's page side): a task's ending is the last word on it, decided cards are stamped with
who and when in the person's clock, a denial is said once, a reload rebuilds the same transcript
from the event log, and an environment switch follows the object by UUID."""

from __future__ import annotations

import json
import re
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from playwright.async_api import BrowserContext, Page, ViewportSize, expect

from sstools.agent.context import BLOCK_END, BLOCK_START
from sstools.agent.offline.answers import render_content
from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import add_user
from sstools.storage.db import create_engine, session_factory
from sstools.testing import ScriptedChatModel
from tests.browser.conftest import ask, drift, screenshot, twin
from tests.integration.deploy_support import Restore, Superset

AGENT = "/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/dashboards/10"
ZONE = "Asia/Yekaterinburg"  # UTC+5: a stamp in UTC (the server's clock) would read wrong
PHONE = ViewportSize(width=390, height=844)
DESKTOP = ViewportSize(width=1280, height=900)
# Every item of the transcript as a person reads it: its kind and its words.
TRANSCRIPT = """() => [...document.querySelectorAll('#transcript > li')].map(
  (li) => [li.className, li.innerText.trim()])"""


async def _as_alice(s: Any) -> BrowserContext:
    """A browser of the engineer «alice», in Yekaterinburg's clock."""
    engine = create_engine(s.settings.database_url)
    async with session_factory(engine)() as session:
        await add_user(session, "alice", Role.engineer, "alice-test-password")
    await engine.dispose()
    context: BrowserContext = await s.browser.new_context(
        locale="ru-RU", timezone_id=ZONE, viewport=DESKTOP
    )
    token = issue_token(s.settings, Principal(username="alice", role=Role.engineer))
    csrf = secrets.token_urlsafe(16)
    await context.add_cookies(
        [
            {"name": "sstools_session", "value": token, "url": s.url, "httpOnly": True},
            {"name": "sstools_csrf", "value": csrf, "url": s.url, "sameSite": "Strict"},
        ]
    )
    return context


def _deploys(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    """Deploys where the person says; reports the task in the offline answers' own words."""
    last = messages[-1]
    if isinstance(last, ToolMessage):
        return AIMessage(content=render_content("deploy_dashboard", str(last.content), {}, None))
    asked = next(str(m.content) for m in reversed(messages) if isinstance(m, HumanMessage))
    target = "prod" if "prod" in asked else "staging"
    call = {
        "name": "deploy_dashboard",
        "args": {"target_env_id": target},
        "id": f"c{len(messages)}",
    }
    return AIMessage(content="", tool_calls=[call])


def _stamped_now(text: str, verb: str) -> None:
    """«Подтверждено: alice, 22:20» with the time of Yekaterinburg, now (give or take a minute)."""
    found = re.fullmatch(rf"{verb}: alice, (\d\d:\d\d)", text)
    assert found, text
    now = datetime.now(UTC)
    shown = {
        (now + timedelta(minutes=delta)).astimezone(ZoneInfo(ZONE)).strftime("%H:%M")
        for delta in (-1, 0, 1)
    }
    assert found.group(1) in shown, (text, shown)


async def _last_is_above_the_composer(page: Page) -> None:
    gap = await page.evaluate(
        """() => document.getElementById('composer').getBoundingClientRect().top
          - document.querySelector('#transcript > li:last-child')
              .getBoundingClientRect().bottom"""
    )
    assert gap >= 0, gap


async def _screens(page: Page, name: str) -> None:
    await screenshot(page, f"{name}-desktop")
    await page.set_viewport_size(PHONE)
    await page.wait_for_timeout(300)  # the transcript re-lays out and follows its end
    await _last_is_above_the_composer(page)
    await screenshot(page, f"{name}-phone")
    await page.set_viewport_size(DESKTOP)


async def test_approve_then_task_done_the_last_message_says_done_and_a_reload_keeps_it_all(
    site: Any, superset: Superset, restore: Restore
) -> None:
    for env_id in ("staging", "prod"):  # a deploy that changes nothing asks nothing
        await restore(env_id)
        await drift(superset, env_id)
    async with site(_deploys) as s:
        page = await (await _as_alice(s)).new_page()
        await page.goto(s.url + AGENT)
        await ask(page, "разверни этот дашборд в staging")
        card = page.locator(".card").first
        await card.locator("button", has_text="Подтвердить").click()
        stamp = card.locator(".card-stamp")
        await expect(stamp).to_have_text(re.compile(r"^Подтверждено: alice, \d\d:\d\d$"))
        _stamped_now(await stamp.inner_text(), "Подтверждено")
        await expect(card.locator("button")).to_have_count(0)  # decided: nothing left to press
        await expect(page.locator(".tool").first).to_have_text("⚙ Выкатка дашборда: готово")
        line = page.locator(".task-line")
        await expect(line).to_have_text("Задача «выкатка»: выполнена", timeout=90_000)
        # The last visible message is the ending, and the end is said once: what the run said at
        # the start («запущена») is never contradicted by a stale «выполняется» or «спросите».
        last = page.locator("#transcript > li").last
        await expect(last).to_have_class(re.compile(r"\btask-ended\b"))
        await expect(last).to_have_text(re.compile(r"^Выкатка «.+»: выполнена\.$"))
        started = page.locator(".msg.assistant").first
        await expect(started).to_contain_text(re.compile(r"«.+»: задача запущена\."))
        await expect(started).not_to_contain_text(re.compile("в очереди|выполняется|спросите"))
        await expect(page.locator(".task-ended")).to_have_count(1)
        await _last_is_above_the_composer(page)
        await _screens(page, "agent-task-ended")
        await card.scroll_into_view_if_needed()
        await screenshot(page, "agent-stamped-card-desktop")
        await page.set_viewport_size(PHONE)
        await card.scroll_into_view_if_needed()
        await screenshot(page, "agent-stamped-card-phone")
        await page.set_viewport_size(DESKTOP)

        await ask(page, "а теперь в prod")
        prod = page.locator(".card").nth(1)
        await prod.locator("button", has_text="Отклонить").click()
        await expect(prod.locator(".card-stamp")).to_have_text(
            re.compile(r"^Отклонено: alice, \d\d:\d\d$")
        )
        await expect(page.locator(".tool").nth(1)).to_have_text("⚙ Выкатка дашборда — отклонено")
        await expect(page.locator("#send")).to_be_enabled()
        live = await page.evaluate(TRANSCRIPT)

        await page.reload()
        await expect(page.locator("#transcript > li")).to_have_count(len(live))
        await expect(page.locator(".task-ended")).to_have_count(1)
        rebuilt = await page.evaluate(TRANSCRIPT)
        assert rebuilt == live
        kinds = [re.sub(r" .*", "", cls) for cls, _ in rebuilt]
        assert kinds[:6] == ["msg", "tool", "card", "task-line", "msg", "msg"], rebuilt
        assert rebuilt[0][1] == "разверни этот дашборд в staging"
        assert rebuilt[2][1].endswith(await stamp.inner_text())
        assert rebuilt[3][1] == "Задача «выкатка»: выполнена"
        assert "task-ended" in rebuilt[5][0]
        assert kinds[6:] == ["msg", "tool", "card"], rebuilt
        assert re.search(r"Отклонено: alice, \d\d:\d\d$", rebuilt[-1][1]), rebuilt
        await expect(page.locator(".card button")).to_have_count(0)  # both decided, still
        await _screens(page, "agent-history-after-reload")


async def test_a_denial_shows_once_live_and_after_a_reload_and_a_waiting_card_survives_one(
    site: Any, superset: Superset, restore: Restore
) -> None:
    await restore("staging")
    _, staging_id = await twin(superset, "staging")
    hotfix = f"/* a hotfix {secrets.token_hex(4)} */"  # unlike any css staging had before
    await superset("staging").put_json(f"/api/v1/dashboard/{staging_id}", {"css": hotfix})
    async with site(_deploys) as s:
        page = await (await _as_alice(s)).new_page()
        await page.goto(s.url + AGENT)
        await ask(page, "разверни этот дашборд в staging")
        line = page.locator(".tool")
        await expect(line).to_have_text("⚙ Выкатка дашборда — ждёт подтверждения")
        await page.reload()  # a card still waiting comes back from the log, to be decided
        await expect(line).to_have_text("⚙ Выкатка дашборда — ждёт подтверждения")
        await expect(page.locator(".card")).to_have_count(1)
        await expect(page.locator(".card .card-actions button")).to_have_text(
            ["Подтвердить", "Отклонить", "Изменить…"]  # its target can be changed, too
        )
        await page.locator(".card button", has_text="Отклонить").click()
        for reloaded in (False, True):
            if reloaded:
                await page.reload()
            stamp = page.locator(".card .card-stamp")
            await expect(stamp).to_have_text(re.compile(r"^Отклонено: alice, \d\d:\d\d$"))
            _stamped_now(await stamp.inner_text(), "Отклонено")
            await expect(line).to_have_text("⚙ Выкатка дашборда — отклонено")
            await expect(page.locator("#send")).to_be_enabled()
            said = await page.locator("#transcript").inner_text()
            # The stamp says it; no status line and no bubble repeat «Операция отменена».
            assert "Операция отменена" not in said, said
            assert said.count("Отклонено") == 1, said
            await expect(page.locator(".status.cancelled")).to_have_count(0)
            await expect(page.locator(".msg.assistant")).to_have_count(0)


# -- the environment switch follows the object by UUID ---------------------------------------


def _explore_then_name(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    """Asks for the context dataset's overview, then answers with what it read."""
    if isinstance(messages[-1], ToolMessage):
        try:
            read = json.loads(str(messages[-1].content))
            said = f"Датасет «{read['name']}» (#{read['id']}): проблем — {len(read['problems'])}."
        except (ValueError, KeyError, TypeError):
            said = str(messages[-1].content)[:400]
        return AIMessage(content=said)
    call = {"name": "superset_explore_database", "args": {}, "id": "c1"}
    return AIMessage(content="", tool_calls=[call])


def _context_blocks(model: ScriptedChatModel) -> list[dict[str, Any]]:
    return [
        json.loads(prompt.split(BLOCK_START)[1].split(BLOCK_END)[0])
        for prompt in model.system_prompts()
        if BLOCK_START in prompt
    ]


async def _api(page: Page, url: str) -> httpx.AsyncClient:
    cookies = {c["name"]: c["value"] for c in await page.context.cookies()}
    return httpx.AsyncClient(base_url=url, cookies=cookies, timeout=60)


async def _dataset_id(api: httpx.AsyncClient, env_id: str, name: str) -> int:
    found = await api.get("/api/datasets", params={"env_id": env_id, "q": name})
    return int(next(one["id"] for one in found.json()["items"] if one["name"] == name))


async def test_env_switch_follows_a_dataset_whose_id_differs_by_uuid(site: Any) -> None:
    async with site(_explore_then_name) as s:
        page = await s.page("/settings")
        async with await _api(page, s.url) as api:
            in_staging = await _dataset_id(api, "staging", "energy_consumption")
            in_dev = await _dataset_id(api, "ss-dev", "energy_consumption")
            same_id = await api.get(
                f"/api/objects/dataset/{in_staging}", params={"env_id": "ss-dev"}
            )
        assert in_staging != in_dev  # the sandbox seeds them apart, as a real fleet would
        assert same_id.status_code != 200 or same_id.json()["name"] != "energy_consumption"
        await page.goto(
            f"{s.url}/agent?objectType=dataset&objectId={in_staging}&objectName=energy_consumption"
            f"&envId=staging&route=/datasets/{in_staging}"
        )
        chip = page.locator("#context-chip")
        await expect(chip).to_have_text("Датасет «energy_consumption» · staging")
        await page.select_option("#env-selector", "ss-dev")
        await expect(chip).to_have_text("Датасет «energy_consumption» · ss-dev")
        assert await page.evaluate("window.sstools.context.objectId") == str(in_dev)
        await ask(page, "есть ли проблемы с этим датасетом?")
        reply = page.locator(".msg.assistant")
        await expect(reply).to_contain_text(f"Датасет «energy_consumption» (#{in_dev})")
        await _screens(page, "agent-env-switch")
        # A reload (or the link shared) names the same dataset, and keeps the conversation.
        assert f"objectId={in_dev}&" in page.url or page.url.endswith(f"objectId={in_dev}")
        await page.reload()
        await expect(chip).to_have_text("Датасет «energy_consumption» · ss-dev")
        await expect(page.locator(".msg.assistant")).to_contain_text("energy_consumption")
        assert await page.evaluate("window.sstools.context.objectId") == str(in_dev)
    sent = {(b["envId"], b["objectId"], b["objectName"]) for b in _context_blocks(s.model)}
    assert sent == {("ss-dev", str(in_dev), "energy_consumption")}


async def test_env_switch_to_where_the_object_is_absent_says_so_and_sends_no_id(site: Any) -> None:
    async with site(_explore_then_name) as s:
        page = await s.page("/settings")
        async with await _api(page, s.url) as api:
            found = await api.get(
                "/api/dashboards", params={"env_id": "ss-dev", "q": "Прогноз нагрузки"}
            )
        draft = next(d["id"] for d in found.json()["items"] if "черновик" in d["title"])
        # A crafted name in the link: the chip shows Superset's, not the URL's.
        await page.goto(
            f"{s.url}/agent?objectType=dashboard&objectId={draft}&objectName=Energy%20KPIs"
            f"&envId=ss-dev&route=/dashboards/{draft}"
        )
        chip = page.locator("#context-chip")
        await expect(chip).to_have_text("Дашборд «Прогноз нагрузки (черновик)» · ss-dev")
        await page.select_option("#env-selector", "prod")
        await expect(chip).to_have_text("в prod этого дашборда нет")
        await screenshot(page, "agent-env-switch-absent-desktop")
        await page.set_viewport_size(PHONE)
        await screenshot(page, "agent-env-switch-absent-phone")
        await ask(page, "что с ним?")
        await expect(page.locator(".msg.assistant")).to_have_count(1)
        # A reload still means that dashboard, absent from prod: no other object, no lost chat.
        await page.reload()
        await expect(chip).to_have_text("в prod этого дашборда нет")
        await expect(page.locator(".msg.assistant")).to_have_count(1)
        await page.select_option("#env-selector", "ss-dev")  # back: the object is there again
        await expect(chip).to_have_text("Дашборд «Прогноз нагрузки (черновик)» · ss-dev")
        await page.reload()
        await expect(chip).to_have_text("Дашборд «Прогноз нагрузки (черновик)» · ss-dev")
        assert "objectEnvId" not in page.url
    block = _context_blocks(s.model)[0]
    assert (block["objectType"], block["objectId"], block["envId"]) == ("dashboard", None, "prod")
    assert block["objectName"] is None
