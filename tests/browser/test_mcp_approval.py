"""A write an MCP host asked for, on its page: the requester sees «Ждёт вашего решения» and what
will happen, presses «Одобрить», and in prod the request then waits for a second person; anyone
else sees that the requester decides first. Prod is put back exactly."""

from __future__ import annotations

import httpx
from langchain_core.messages import AIMessage, BaseMessage
from playwright.async_api import expect

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.http.auth import HOLD_HEADER
from tests.browser.conftest import drift, screenshot, twin
from tests.integration.deploy_support import Superset, kept_as_it_was


def _silent(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    return AIMessage(content="")


async def test_the_requester_decides_an_mcp_write_first_on_its_page(
    site: object, superset: Superset
) -> None:
    _, prod_id = await twin(superset, "prod")
    async with kept_as_it_was(superset, "prod", prod_id), site(_silent) as s:  # type: ignore[operator]
        hotfix = await drift(superset, "prod")
        token = issue_token(s.settings, Principal(username="engineer", role=Role.engineer))
        body = {"dashboard_ids": [10], "source": {"env_id": "ss-dev"}, "target_env_id": "prod"}
        async with httpx.AsyncClient(
            base_url=s.url, headers={"Authorization": f"Bearer {token}"}, timeout=120
        ) as api:
            plan = (await api.post("/api/deploy/plan", json=body)).json()
            held = await api.post(
                "/api/deploy",
                json={**body, "digest": plan["digest"]},
                headers={HOLD_HEADER: "writes"},
            )
        assert held.status_code == 202, held.text
        request = held.json()
        assert request["status"] == "awaiting_first"
        page = await s.page(f"/approvals/{request['id']}", Role.engineer)
        await expect(page.locator("#approval-state")).to_have_text("Ждёт вашего решения")
        await expect(page.get_by_text("Запрос сделан из клиента MCP")).to_be_visible()
        await expect(
            page.get_by_text("сначала запросивший; где нужны два человека")
        ).to_be_visible()
        await screenshot(page, "approval-mcp-requester-desktop")
        await page.set_viewport_size({"width": 390, "height": 844})
        await screenshot(page, "approval-mcp-requester-phone")
        await page.set_viewport_size({"width": 1280, "height": 900})
        other = await s.page(f"/approvals/{request['id']}", Role.admin)
        await expect(other.locator(".approval-why-not")).to_have_text(
            "Сначала этот запрос одобряет или отклоняет тот, кто его сделал."
        )
        await expect(other.locator("#approval-approve")).to_have_count(0)
        await page.click("#approval-approve")
        await expect(page.locator("#approval-state")).to_have_text(
            "Ожидает второго одобрения", timeout=20_000
        )
        await screenshot(page, "approval-mcp-after-first-desktop")
        css = (await superset("prod").get_json(f"/api/v1/dashboard/{prod_id}"))["result"]["css"]
    assert css == hotfix  # one person's word: prod untouched
