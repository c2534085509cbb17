"""Two people, two browsers, one prod deploy: the requester's «Подтвердить» turns the card into
«Ожидает второго одобрения» with a link; a second engineer opens it, sees the plan and presses
«Одобрить»; the requester's card is stamped live and the deploy runs once. Clicks and seconds are
measured (printed for the report). Prod is put back exactly (its raw CSS, null stays null).
"""

from __future__ import annotations

import re
import secrets
import time
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from playwright.async_api import BrowserContext, ViewportSize, expect
from sqlalchemy import select

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import add_user
from sstools.domain.deploy import import_bundle
from sstools.storage.db import create_engine, session_factory
from sstools.storage.models import User
from tests.browser.conftest import Site, ask, drift, screenshot, twin
from tests.integration.deploy_support import Superset, _importable, delete_by_uuid, export_all

AGENT = "/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=%2Fdashboards%2F10"
PHONE = ViewportSize(width=390, height=844)
DESKTOP = ViewportSize(width=1280, height=900)
SECOND = "engineer2"


def _deploys(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    if isinstance(messages[-1], ToolMessage):
        return AIMessage(content="Выкатка в prod запущена.")
    call = {"name": "deploy_dashboard", "args": {"target_env_id": "prod"}, "id": "c_deploy"}
    return AIMessage(content="", tool_calls=[call])


async def _as(site: Site, username: str, role: Role) -> BrowserContext:
    """A signed-in browser of ``username`` (the site's own contexts are one per role)."""
    context = await site.browser.new_context(locale="ru-RU", viewport=DESKTOP)
    token = issue_token(site.settings, Principal(username=username, role=role))
    await context.add_cookies(
        [
            {"name": "sstools_session", "value": token, "url": site.url, "httpOnly": True},
            {"name": "sstools_csrf", "value": secrets.token_urlsafe(16), "url": site.url},
        ]
    )
    return context


async def _second_engineer(site: Site) -> None:
    engine = create_engine(site.settings.database_url)
    async with session_factory(engine)() as session:
        if await session.scalar(select(User).where(User.username == SECOND)) is None:
            await add_user(session, SECOND, Role.engineer, "engineer2-test-password")
    await engine.dispose()


async def _screens(page: Any, name: str) -> None:
    await screenshot(page, f"{name}-desktop")
    await page.set_viewport_size(PHONE)
    await page.wait_for_timeout(300)
    await screenshot(page, f"{name}-phone")
    await page.set_viewport_size(DESKTOP)


async def test_a_second_engineer_approves_a_prod_deploy_through_its_page(
    site: Any, superset: Superset
) -> None:
    _, prod_id = await twin(superset, "prod")
    prod = superset("prod")
    files, dashboards, charts = await export_all(prod)
    css = (await prod.get_json(f"/api/v1/dashboard/{prod_id}"))["result"].get("css")
    try:
        hotfix = await drift(superset, "prod")
        async with site(_deploys) as s:
            await _second_engineer(s)
            chat = await (await s.context(Role.engineer)).new_page()
            await chat.goto(s.url + AGENT)
            await ask(chat, "разверни этот дашборд в prod")
            card = chat.locator(".card").first
            confirm = card.locator("button", has_text="Подтвердить")
            await expect(confirm).to_be_visible(timeout=30_000)
            asked_at = time.monotonic()
            await confirm.click()  # click 1 (the requester)
            waiting = card.locator(".card-waiting")
            await expect(waiting).to_contain_text("Ожидает второго одобрения")
            await expect(waiting).to_contain_text("«инженер»")
            waited_s = time.monotonic() - asked_at
            await expect(card.locator("button")).to_have_count(0)
            link = await waiting.locator("a.approval-link").get_attribute("href")
            assert link is not None
            assert re.fullmatch(r"/approvals/cf_[0-9a-f]{32}", link), link
            await _screens(chat, "approval-card")
            # A reload rebuilds the waiting card from the conversation's log.
            await chat.reload()
            await expect(chat.locator(".card-waiting")).to_contain_text("Ожидает второго")
            assert (await prod.get_json(f"/api/v1/dashboard/{prod_id}"))["result"][
                "css"
            ] == hotfix  # the requester's approval ran nothing

            # The requester's own page of the request: the state, no buttons.
            own = await chat.context.new_page()
            await own.goto(s.url + link)
            await expect(own.locator(".approval-why-not")).to_have_text(
                "Это ваш запрос: одобрить его должен другой человек."
            )
            await expect(own.locator("#approval-approve")).to_have_count(0)

            second = await (await _as(s, SECOND, Role.engineer)).new_page()
            opened_at = time.monotonic()
            await second.goto(s.url + "/dashboards?env_id=ss-dev")  # any page: the header
            badge = second.locator("#approvals-badge")
            await expect(badge).to_be_visible()
            await expect(badge.locator(".approvals-count")).to_have_text("1")
            nav = second.locator("nav.nav a")  # the overview, drift and approvals are a click away
            for label in ("Обзор", "Расхождения", "Одобрения"):
                await expect(nav.filter(has_text=label)).to_have_count(1)
            await badge.click()  # click 2 (the second engineer): the list
            listed = second.locator(".approvals-table tbody tr")
            await expect(listed).to_have_count(1)
            await expect(listed).to_contain_text("Отчёт по энергопотреблению")  # what, by name
            await expect(listed).to_contain_text("engineer")  # and who asked
            await _screens(second, "approvals-list")
            await second.locator(".approvals-table a.button", has_text="Открыть").click()  # 3
            await expect(second).to_have_url(s.url + link)
            page = second.locator("#approval")
            await expect(page.locator("#approval-state")).to_have_text("Ожидает второго одобрения")
            await expect(page.locator(".badge")).to_have_text("⚠️ ПРОДУКТИВ")
            await expect(page.locator(".card-impact")).to_have_text(
                "Влияние: 1 дашборд будет изменён"
            )
            await expect(page.locator(".card-objects")).to_contain_text(
                "дашборд «Отчёт по энергопотреблению»: изменить (css)"
            )
            await expect(page.locator(".approval-requester")).to_have_text("engineer")
            await page.locator(".card-changes summary").click()
            await expect(page.locator(".card-changes .diff")).to_contain_text(hotfix)
            await _screens(second, "approval-page")
            decided_at = time.monotonic()
            await second.locator("#approval-approve").click()  # click 4
            await expect(second.locator("#approval-state")).to_have_text(
                re.compile(r"^Одобрено"), timeout=30_000
            )
            await expect(second.locator(".approval-decider")).to_contain_text(SECOND)
            # The requester sees it live: the card stamped, then the task's ending.
            stamp = card.locator(".card-stamp")
            await expect(stamp).to_have_text(
                re.compile(rf"^Одобрено вторым: {SECOND}, \d\d:\d\d \(запросил\(а\) engineer\)$"),
                timeout=30_000,
            )
            await expect(chat.locator(".task-line")).to_contain_text(
                "Задача «выкатка»: выполнена", timeout=120_000
            )
            applied_s = time.monotonic() - decided_at
            # The approver follows it to its end: the page gets the task's link by itself.
            task_link = second.locator("#approval a[href^='/tasks/']")
            await expect(task_link).to_be_visible(timeout=30_000)
            await expect(second.locator("#approval-state")).to_have_text(
                "Одобрено — изменение запущено задачей"
            )
            await task_link.click()
            await expect(second.locator("dl").first).to_contain_text(
                f"engineer, одобрил(а) {SECOND}"
            )
            await _screens(second, "approval-task")
            second_s = decided_at - opened_at
            applied = (await prod.get_json(f"/api/v1/dashboard/{prod_id}"))["result"]["css"]
            assert applied != hotfix
            # Nothing waits for them any more: the header keeps «Одобрения», with no number.
            await expect(second.locator("#approvals-badge")).to_be_visible()
            await expect(second.locator("#approvals-badge .approvals-count")).to_be_hidden()
            assert s.console_errors == [], s.console_errors
            for tab in (chat, second):
                await tab.context.close()  # their event streams end before the server does
        print(  # the issue's closing note wants these numbers
            f"\nsecond approval: requester 1 click, card waiting in {waited_s:.2f} s; "
            f"second engineer 3 clicks (badge, «Открыть», «Одобрить») after {second_s:.2f} s "
            f"on the pages; applied {applied_s:.2f} s after «Одобрить»"
        )
    finally:
        now = await export_all(prod)
        await delete_by_uuid(prod, "dashboard", now[1] - dashboards)
        await delete_by_uuid(prod, "chart", now[2] - charts)
        changed = {path for path, content in files.items() if now[0].get(path) != content}
        if changed:
            await import_bundle(prod, _importable(files, changed))
        await prod.put_json(f"/api/v1/dashboard/{prod_id}", {"css": css})
        assert (await prod.get_json(f"/api/v1/dashboard/{prod_id}"))["result"].get("css") == css
