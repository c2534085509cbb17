"""/docs «Try it out» from a signed-in browser: the session (and its CSRF header) is enough, and
the example bodies Swagger UI fills in are ones the server accepts."""

from __future__ import annotations

import json
from typing import Any

from playwright.async_api import Page, expect

from sstools.testing import answer


async def _try(page: Page, operation: str) -> tuple[int, Any]:
    """Open the operation, «Try it out», «Execute» with what it filled in: status and body."""
    block = page.locator(f"#{operation}")
    await block.locator(".opblock-summary").click()
    await block.get_by_role("button", name="Try it out").click()
    async with page.expect_response(lambda r: "/api/" in r.url) as caught:
        await block.get_by_role("button", name="Execute").click()
    response = await caught.value
    return response.status, await response.json()


async def test_try_it_out_on_a_get_and_a_post_works_from_the_browser_session(site: Any) -> None:
    async with site(answer("не используется")) as s:
        page = await s.page("/docs")
        await expect(page.get_by_text("/api/sql/format", exact=True)).to_be_visible(timeout=15_000)
        status, body = await _try(page, "operations-auth-me_api_auth_me_get")
        assert status == 200, body
        assert body["username"] == "engineer"

        status, body = await _try(page, "operations-sql-format_endpoint_api_sql_format_post")
        assert status == 200, body  # without the X-CSRF-Token header: 403
        assert body["sql"]
        assert s.console_errors == []


async def test_the_plan_example_body_asks_for_one_way_of_naming_dashboards(site: Any) -> None:
    async with site(answer("не используется")) as s:
        page = await s.page("/docs")
        block = page.locator("#operations-deploy-plan_deploy_api_deploy_plan_post")
        await expect(block).to_be_visible(timeout=15_000)
        await block.locator(".opblock-summary").click()
        await block.get_by_role("button", name="Try it out").click()
        example = json.loads(await block.locator("textarea.body-param__text").input_value())
        assert bool(example.get("dashboard_ids")) != bool(example.get("dashboard_uuids")), example
