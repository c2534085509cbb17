"""The /agent page in a real Chromium: Story 1 end to end, Story 2's cards, safety, resilience."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from playwright.async_api import expect

from sstools.agent.context import BLOCK_END, BLOCK_START
from sstools.auth.roles import Role
from sstools.sandbox import Sandbox
from sstools.superset import SupersetClient
from sstools.testing import ScriptedChatModel, answer, call_tool
from tests.agent.conftest import DASHBOARD_SET
from tests.browser.conftest import ask, drift, screenshot
from tests.integration.deploy_support import Restore, Superset

XSS = '<img src=x onerror="alert(\'xss\')"><script>alert("xss")</script>'


def _context_blocks(model: ScriptedChatModel) -> list[dict[str, Any]]:
    return [
        json.loads(prompt.split(BLOCK_START)[1].split(BLOCK_END)[0])
        for prompt in model.system_prompts()
        if BLOCK_START in prompt
    ]


def _health_then_summary(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    if isinstance(messages[-1], ToolMessage):
        health = json.loads(str(messages[-1].content))
        return AIMessage(
            content=f"**{health['title']}** (#{health['dashboard_id']}): "
            f"состояние {health['status']}, git — {health['git_status']}."
        )
    return AIMessage(
        content="", tool_calls=[{"name": "get_health_summary", "args": {}, "id": "call_1"}]
    )


async def test_agctx_fr_001_story1_from_the_dashboard_page_to_an_answer_about_it(site: Any) -> None:
    async with site(_health_then_summary) as s:
        page = await s.page("/dashboards/10?env_id=ss-dev")
        await page.click("text=Спросить агента")
        await page.wait_for_url("**/agent?**")
        assert (
            "objectType=dashboard&objectId=10&objectName=%D0%9E%D1%82%D1%87%D1%91%D1%82%20"
            in page.url
        )
        assert page.url.endswith("&envId=ss-dev&route=/dashboards/10")
        await expect(page.locator("#context-chip")).to_have_text(
            "Дашборд «Отчёт по энергопотреблению» · ss-dev"
        )
        await ask(page, "расскажи про этот дашборд")
        reply = page.locator(".msg.assistant strong")
        await expect(reply).to_have_text("Отчёт по энергопотреблению")
        await expect(page.locator(".msg.assistant")).to_contain_text("(#10)")
        # The tool as a person names it, not its id.
        await expect(page.locator(".tool")).to_contain_text("Сводка состояния дашборда: готово")
        await screenshot(page, "story1")
    # Only dashboard tools (the exact set is the router-off one, tests/agent/test_selection.py);
    # the router narrows it to what fits the message, which must include the health summary.
    assert {"get_health_summary", "show_capabilities"} <= set(s.model.offered[0]) <= DASHBOARD_SET
    assert _context_blocks(s.model)[0]["objectId"] == "10"


async def test_aggrd_fr_002_story2_prod_card_is_destructive_and_staging_card_is_calm(
    site: Any, superset: Superset, restore: Restore
) -> None:
    for env_id in ("prod", "staging"):  # a deploy that changes nothing asks nothing
        await restore(env_id)
        await drift(superset, env_id)
    deploy = call_tool("deploy_dashboard", {"target_env_id": "prod"})
    async with site(deploy) as s:
        page = await s.page(
            "/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/dashboards/10"
        )
        await ask(page, "выкати на прод")
        card = page.locator(".card.tone-destructive")
        await expect(card).to_be_visible()
        await expect(card.locator(".badge")).to_have_text("⚠️ ПРОДУКТИВ")
        await expect(card.locator(".card-prompt")).to_contain_text("⚠️ ПРОДУКТИВ")
        await expect(card.locator(".card-impact")).to_contain_text("Влияние")
        # The plan the approval applies: short on the card, whole in the title.
        await expect(card.locator(".card-digest")).to_have_text(
            re.compile(r"^План: [0-9a-f]{12}…$")
        )
        await expect(card.locator(".card-digest")).to_have_attribute(
            "title", re.compile(r"[0-9a-f]{64}$")
        )
        await expect(card.locator("button.danger")).to_have_text("Подтвердить")
        await expect(card).to_be_focused()
        await screenshot(page, "card-prod")
    async with site(call_tool("deploy_dashboard", {"target_env_id": "staging"})) as s:
        page = await s.page(
            "/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/dashboards/10"
        )
        await ask(page, "выкати на стейджинг")
        card = page.locator(".card.tone-info")
        await expect(card).to_be_visible()
        await expect(card.locator(".card-prompt")).to_have_text(
            "Изменения в staging-окружении «Superset staging»"
        )
        await expect(card).not_to_contain_text("⚠️")
        await screenshot(page, "card-staging")


async def test_permission_denied_card_offers_only_dismiss(site: Any) -> None:
    deploy = call_tool("deploy_dashboard", {"target_env_id": "prod"}, text="Понял.")
    async with site(deploy) as s:
        page = await s.page(
            "/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/x", role=Role.analyst
        )
        await ask(page, "выкати на прод")
        card = page.locator(".card.denied")
        await expect(card).to_contain_text("Недостаточно прав")
        await expect(card).to_contain_text("доступно роли «инженер»; у вас — «аналитик»")
        await expect(card).not_to_contain_text("engineer")
        await expect(page.locator(".msg.assistant")).to_have_text(
            re.compile(r"^Понял\.\s+Изменений не было\.\s*$")
        )
        # Said once, by the card: no tool line repeats it, and no tool id shows anywhere.
        said = await page.locator("#transcript").inner_text()
        assert said.count("Недостаточно прав") == 2, said  # the card's heading and its sentence
        assert "deploy_dashboard" not in said
        await expect(card.locator("button")).to_have_count(1)
        await expect(card.locator("button")).to_have_text("Закрыть")
        await expect(page.locator(".card:not(.denied)")).to_have_count(0)
        await screenshot(page, "card-denied")
        await card.locator("button").click()
        await expect(card).to_have_count(0)


async def test_deny_shows_the_cancellation(site: Any, superset: Superset, restore: Restore) -> None:
    await restore("staging")
    await drift(superset, "staging")
    async with site(call_tool("deploy_dashboard", {"target_env_id": "staging"})) as s:
        page = await s.page("/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/x")
        await ask(page, "выкати")
        line = page.locator(".tool")
        await expect(line).to_have_text("⚙ Выкатка дашборда — ждёт подтверждения")
        await page.locator(".card button", has_text="Отклонить").click()
        await expect(line).to_have_text("⚙ Выкатка дашборда — отклонено")
        await expect(page.locator(".card .card-stamp")).to_contain_text("Отклонено: engineer, ")
        await expect(page.locator(".card")).to_have_attribute("data-decided", "deny")
        said = await page.locator("#transcript").inner_text()
        # The denial is said by its card's stamp and the tool line: no status line, no bubble.
        assert await page.locator(".status.cancelled").count() == 0
        assert said.count("Отклонено") == 1, said


async def test_a_denial_says_why_to_the_agent_and_on_its_stamp(
    site: Any, superset: Superset, restore: Restore
) -> None:
    await restore("staging")
    await drift(superset, "staging")
    async with site(call_tool("deploy_dashboard", {"target_env_id": "staging"})) as s:
        page = await s.page("/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/x")
        await ask(page, "выкати")
        card = page.locator(".card")
        said = "<b>не сейчас</b>, сначала ревью"
        await card.locator(".card-reason").fill(said)
        await screenshot(page, "card-deny-reason-desktop")
        await page.set_viewport_size({"width": 390, "height": 844})
        await card.scroll_into_view_if_needed()
        await screenshot(page, "card-deny-reason-phone")
        await card.locator("button", has_text="Отклонить").click()
        stamp = card.locator(".card-stamp")
        await expect(stamp).to_contain_text(f"— «{said}»")  # the person's words, as text
        assert await card.locator(".card-stamp b").count() == 0
        await screenshot(page, "card-denied-with-reason-phone")
        # The denial ends the turn; the model reads the reason with the denied call in the next.
        await ask(page, "а что тогда предложишь?")
        await expect(page.locator(".card")).to_have_count(2)  # this script proposes it again
    told = [str(m.content) for m in s.model.prompts[-1] if isinstance(m, ToolMessage)]
    assert any(said in text for text in told), told


async def test_xss_in_object_name_and_model_output_stays_text(site: Any) -> None:
    async with site(answer(f"Вот: {XSS} и **жирный**")) as s:
        from urllib.parse import quote

        # Without an id the name is all the page has: a hint, shown and sent as text.
        page = await s.page(
            f"/agent?objectType=dashboard&objectName={quote(XSS)}&envId=ss-dev&route=/dashboards"
        )
        await expect(page.locator("#context-chip")).to_contain_text("<img src=x onerror=")
        await ask(page, XSS)
        await expect(page.locator(".msg.assistant strong")).to_have_text("жирный")
        await expect(page.locator(".msg.user")).to_have_text(XSS)
        assert await page.locator(".transcript script, .transcript [onerror]").count() == 0
        await page.wait_for_timeout(300)
    assert s.dialogs == []
    assert not [error for error in s.console_errors if "Content Security Policy" in error]
    assert _context_blocks(s.model)[0]["objectName"] == XSS  # sent as data, verbatim


async def test_a_crafted_object_name_gives_way_to_supersets_on_the_chip(site: Any) -> None:
    async with site(answer("ок")) as s:
        from urllib.parse import quote

        page = await s.page(
            f"/agent?objectType=dashboard&objectId=10&objectName={quote(XSS)}"
            "&envId=ss-dev&route=/dashboards/10"
        )
        chip = page.locator("#context-chip")
        await expect(chip).to_contain_text("Отчёт по энергопотреблению")
        await expect(chip).not_to_contain_text("onerror")
        await ask(page, "что это?")
        await expect(page.locator(".msg.assistant")).to_contain_text("ок")
    assert s.dialogs == []
    assert _context_blocks(s.model)[0]["objectName"] == "Отчёт по энергопотреблению"


async def test_agctx_fr_003_env_selector_changes_the_next_message(site: Any) -> None:
    async with site(answer("ок")) as s:
        page = await s.page("/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/x")
        await ask(page, "первое")
        await expect(page.locator(".msg.assistant")).to_have_count(1)
        await page.select_option("#env-selector", "staging")
        await expect(page.locator("#context-chip")).to_contain_text("· staging")
        assert "envId=staging" in page.url
        await ask(page, "второе")
        await expect(page.locator(".msg.assistant")).to_have_count(2)
    assert [block["envId"] for block in _context_blocks(s.model)] == ["ss-dev", "staging"]


async def test_two_tabs_with_different_objects_do_not_mix(site: Any) -> None:
    async with site(answer("ок")) as s:
        context = await s.context()
        first = await s.page(
            "/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/a", context=context
        )
        second = await s.page(
            "/agent?objectType=dataset&objectId=2&envId=prod&route=/b", context=context
        )
        await ask(first, "про дашборд")
        await ask(second, "про датасет")
        await expect(first.locator(".msg.user")).to_have_text(["про дашборд"])
        await expect(second.locator(".msg.user")).to_have_text(["про датасет"])
        await expect(first.locator(".msg.assistant")).to_have_count(1)
        await expect(second.locator(".msg.assistant")).to_have_count(1)
    blocks = sorted((b["objectType"], b["objectId"], b["envId"]) for b in _context_blocks(s.model))
    assert blocks == [("dashboard", "10", "ss-dev"), ("dataset", "2", "prod")]


async def test_agctx_fr_003_history_is_restored_on_reload_and_a_new_object_starts_fresh(
    site: Any,
) -> None:
    async with site(answer("ответ агента")) as s:
        page = await s.page("/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/a")
        await ask(page, "вопрос")
        await expect(page.locator(".msg.assistant")).to_have_text(
            re.compile(r"^ответ\ агента\s+Изменений не было\.\s*$")
        )
        await page.reload()
        await expect(page.locator(".msg.user")).to_have_text("вопрос")
        await expect(page.locator(".msg.assistant")).to_have_text(
            re.compile(r"^ответ\ агента\s+Изменений не было\.\s*$")
        )
        await page.goto(s.url + "/agent?objectType=dashboard&objectId=11&envId=ss-dev&route=/b")
        await expect(page.locator("#context-chip")).to_contain_text("#11")
        await expect(page.locator(".msg")).to_have_count(0)


async def test_reconnect_after_the_server_drops_the_stream_shows_the_card_once(
    site: Any, superset: Superset, restore: Restore
) -> None:
    from sstools.testing import free_port

    await restore("staging")
    await drift(superset, "staging")
    port = free_port()
    model = ScriptedChatModel(script=call_tool("deploy_dashboard", {"target_env_id": "staging"}))
    async with site(model.script, port=port, model=model) as s:
        page = await s.page("/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/x")
        await ask(page, "выкати")
        await expect(page.locator(".card")).to_have_count(1)
    # The server is gone (the stream dropped); the same app state comes back on the same port.
    await expect(page.locator("#connection")).to_be_visible()
    async with site(model.script, port=port, model=model):
        await expect(page.locator("#connection")).to_be_hidden(timeout=15_000)
        await page.wait_for_timeout(500)
        await expect(page.locator(".card")).to_have_count(1)
        await page.locator(".card button", has_text="Подтвердить").click()
        await expect(page.locator(".tool").last).to_contain_text("Выкатка дашборда")


async def test_xss_in_real_tool_output_stays_text(site: Any, sandbox: Sandbox) -> None:
    """A hostile dashboard title in Superset, echoed by the model: rendered inert."""
    env = next(env for env in sandbox.environments() if env.id == "ss-dev")
    superset = SupersetClient(env)
    title = f"xss-probe {XSS}"
    created = await superset.post_json("/api/v1/dashboard/", {"dashboard_title": title})

    def echo(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            items = json.loads(str(messages[-1].content))["items"]
            return AIMessage(content="Нашёл: " + ", ".join(item["title"] for item in items))
        return AIMessage(
            content="",
            tool_calls=[
                {"name": "search_dashboards", "args": {"query": "xss-probe"}, "id": "call_1"}
            ],
        )

    try:
        async with site(echo) as s:
            page = await s.page("/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/x")
            await ask(page, "найди xss-probe")
            reply = page.locator(".msg.assistant")
            await expect(reply).to_contain_text(f"Нашёл: {title}")  # shown, as text
            assert await page.locator(".transcript script, .transcript [onerror]").count() == 0
            await page.wait_for_timeout(300)
    finally:
        await superset.delete(f"/api/v1/dashboard/{created['id']}")
        await superset.aclose()
    assert s.dialogs == []
    assert not [error for error in s.console_errors if "Content Security Policy" in error]


async def test_history_without_context_says_so(site: Any) -> None:
    async with site(answer("ок")) as s:
        page = await s.page("/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/a")
        cookies = {c["name"]: c["value"] for c in await page.context.cookies()}
        async with httpx.AsyncClient(base_url=s.url, cookies=cookies, timeout=30) as api:
            headers = {"X-CSRF-Token": cookies["sstools_csrf"]}
            cid = (await api.post("/api/agent/conversations", headers=headers)).json()["id"]
            await api.post(
                f"/api/agent/conversations/{cid}/messages",
                headers=headers,
                json={"text": "старый вопрос", "uicontext": None},
            )
        key = "sstools.conversation:dashboard:10:/a"
        await page.evaluate(f"sessionStorage.setItem('{key}', '{cid}')")
        await page.reload()
        await expect(page.locator(".status.context-unavailable")).to_have_text(
            "контекст недоступен"
        )
        await expect(page.locator(".msg.user")).to_have_text("старый вопрос")
