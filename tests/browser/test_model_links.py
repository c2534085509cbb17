"""Links in model output, in a real Chromium: only this site's and Superset's stay links.

Issue 18: a document (or an answer) the model wrote may carry an injected phishing link; on the
page its address is shown as text, never followed, and an image from elsewhere is never fetched.
Issue 32 §6: no image is fetched at all, this site's and Superset's neither (it would load with
the reader's session): its address is a link to follow by hand.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page, Request, expect

from sstools.sandbox import Sandbox
from sstools.testing import answer
from tests.browser.conftest import ask


def _answer(superset_url: str) -> str:
    return (
        "## Назначение\n\n"
        "Подробнее: [нажмите здесь](https://evil.example/x), ещё <https://evil.example/auto>, "
        "https://evil.example/bare, [по ссылке][ref] и [без схемы](//evil.example/proto).\n\n"
        "![пиксель](https://evil.example/p.png)\n\n"
        f"Свои: [дашборд](/dashboards/10?env_id=ss-dev) и "
        f"[в Superset]({superset_url}/superset/dashboard/10/).\n\n"
        f"Картинки: ![график]({OWN_IMAGE}) и ![]({superset_url}{SUPERSET_IMAGE}).\n\n"
        "[ref]: https://evil.example/ref\n"
    )


# Images the answer names on trusted sites: an address whose GET would act with the reader's
# session, and one in Superset. Neither may ever be requested.
OWN_IMAGE = "/api/tasks?kind=deploy&probe=image"
SUPERSET_IMAGE = "/static/assets/images/superset-logo-horiz.png?probe=image"


async def _rendered_inert(page: Page, superset_url: str) -> None:
    reply = page.locator(".msg.assistant").last
    await expect(reply.locator("h2")).to_have_text("Назначение")
    assert await reply.locator('a[href*="evil.example"]').count() == 0
    assert await reply.locator("img").count() == 0
    hrefs = [await link.get_attribute("href") for link in await reply.locator("a").all()]
    assert hrefs == [
        "/dashboards/10?env_id=ss-dev",
        f"{superset_url}/superset/dashboard/10/",
        OWN_IMAGE,
        f"{superset_url}{SUPERSET_IMAGE}",
    ]
    assert await reply.locator("a", has_text="график").count() == 1  # the image's words
    text = await reply.inner_text()
    for shown in (
        "нажмите здесь (https://evil.example/x)",
        "https://evil.example/auto",
        "https://evil.example/bare",
        "по ссылке (https://evil.example/ref)",
        "без схемы (//evil.example/proto)",
        "пиксель (https://evil.example/p.png)",
    ):
        assert shown in text, text
    assert await reply.locator(".inert-link").count() == 6


async def test_outside_links_in_model_output_are_shown_as_text_not_followed(
    site: Any, sandbox: Sandbox
) -> None:
    superset_url = next(env.url for env in sandbox.environments() if env.id == "ss-dev")
    async with site(answer(_answer(superset_url))) as s:
        page = await s.page("/agent?objectType=dashboard&objectId=10&envId=ss-dev&route=/x")
        outside: list[str] = []

        def seen(request: Request) -> None:
            if "evil.example" in request.url or "probe=image" in request.url:
                outside.append(request.url)

        page.on("request", seen)
        await ask(page, "задокументируй")
        await _rendered_inert(page, superset_url)  # as the answer arrives
        await page.reload()
        await _rendered_inert(page, superset_url)  # and from the stored conversation
        await page.locator(".inert-link").first.click()
        await page.wait_for_timeout(300)
        assert "/agent" in page.url
    assert outside == []
