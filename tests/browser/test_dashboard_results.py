"""The dashboard page's results in Chromium on the real sandbox: the seeded broken dashboard
(«Тарифы 2023 (архив)», a chart whose dataset was deleted) says first that it was never checked,
then — validated and documented through the app's API — lists its findings in words and shows
its document; a hostile document is text on the page and runs nothing. Desktop and phone.

Validation and documentation only read ss-dev; their results go to this test's own database."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import httpx
from playwright.async_api import Page, ViewportSize, expect

from sstools.auth.roles import Role
from sstools.domain.documentation import SECTIONS
from sstools.storage.db import create_engine, session_factory
from sstools.storage.models import DashboardDocument
from sstools.testing import answer
from tests.conftest import AuthHeaders
from tests.integration.deploy_support import Superset

ENV = "ss-dev"
ARCHIVE = "Тарифы 2023 (архив)"  # sstools/sandbox/seed.py: its chart's dataset is deleted
ARCHIVE_CHART = "Тарифы (устаревшие)"
PHONE = ViewportSize(width=390, height=844)
DESKTOP = ViewportSize(width=1280, height=900)
HOSTILE = """# Тарифы

Текст <script>alert('doc')</script> и <img src=x onerror="alert('img')">,
[ссылка](javascript:alert('link')).

| График | Тип |
|---|---|
| <b onmouseover="alert('cell')">x</b> | table |
"""


async def _archive_id(api: httpx.AsyncClient, auth: AuthHeaders) -> int:
    found = await api.get(
        "/api/dashboards", params={"env_id": ENV, "q": ARCHIVE}, headers=auth(Role.analyst)
    )
    return int(next(item["id"] for item in found.json()["items"] if item["title"] == ARCHIVE))


async def _run(api: httpx.AsyncClient, auth: AuthHeaders, dashboard: int, action: str) -> None:
    """Start ``validate`` or ``document`` through the app, as a person's agent would, and wait."""
    started = await api.post(
        f"/api/dashboards/{dashboard}/{action}", params={"env_id": ENV}, headers=auth(Role.analyst)
    )
    assert started.status_code == 202, started.text
    deadline = time.monotonic() + 180
    while True:
        task = await api.get(f"/api/tasks/{started.json()['id']}", headers=auth(Role.analyst))
        status = task.json()["status"]
        if status in ("succeeded", "failed", "cancelled"):
            assert status == "succeeded", task.text
            return
        assert time.monotonic() < deadline, task.text
        await asyncio.sleep(0.3)


async def _fits(page: Page) -> None:
    sideways = await page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert sideways <= 0, f"{sideways}px of sideways scroll"


async def _screenshots(page: Page, name: str) -> None:
    """The whole page at 1280×900 and 390×844 (for docs/screenshots); no sideways scroll."""
    folder = os.environ.get("SSTOOLS_SCREENSHOTS")
    for size in (DESKTOP, PHONE):
        await page.set_viewport_size(size)
        await _fits(page)
        if folder:
            path = f"{folder}/{name}-{size['width']}.png"
            await page.screenshot(path=path, full_page=True)
    await page.set_viewport_size(DESKTOP)


async def test_the_broken_dashboards_findings_and_document_are_on_its_page(
    site: Any, auth: AuthHeaders, superset: Superset
) -> None:
    async with (
        site(answer("не используется")) as s,
        httpx.AsyncClient(base_url=s.url, timeout=60) as api,
    ):
        archive = await _archive_id(api, auth)
        page = await s.page(f"/dashboards/{archive}?env_id={ENV}", role=Role.analyst)
        validation, documentation = page.locator("#validation"), page.locator("#documentation")
        await expect(validation.locator("h2")).to_have_text("Проверка")
        await expect(validation.locator(".validation-none")).to_have_text(
            "Этот дашборд в окружении «Superset dev» ещё не проверяли."
        )
        await expect(validation.locator("a.action-validate")).to_have_text("Проверить…")
        await expect(documentation.locator(".documentation-none")).to_have_text(
            "Документации этого дашборда в окружении «Superset dev» пока нет."
        )

        await _run(api, auth, archive, "validate")
        await _run(api, auth, archive, "document")
        stored = await api.get(
            f"/api/dashboards/{archive}/validation",
            params={"env_id": ENV},
            headers=auth(Role.analyst),
        )
        report = stored.json()
        await page.reload()

        # Every finding of the latest validation, the error about the orphan chart first.
        findings = validation.locator(".finding")
        await expect(findings).to_have_count(len(report["findings"]))
        first = findings.first
        await expect(first.locator(".severity")).to_have_text("ошибка")
        await expect(first.locator(".finding-object")).to_have_text(f"график «{ARCHIVE_CHART}» ↗")
        [orphan] = [one for one in report["findings"] if one["kind"] == "missing_dataset"]
        await expect(first.locator(".finding-fix")).to_have_text(f"Что сделать: {orphan['fix']}")
        await expect(first.locator(".finding-object a")).to_have_attribute(
            "href", f"{superset('ss-dev').env.url}/explore/?slice_id={orphan['object_id']}"
        )
        counts = report["counts"]
        await expect(validation.locator(".validation-counts")).to_have_text(
            f"ошибок: {counts['error']}, предупреждений: {counts['warning']}, "
            f"заметок: {counts['info']}"
        )
        await expect(validation.locator(".validation-none")).to_have_count(0)

        # The document, read as headings, a table and lines: the template's six sections.
        await expect(documentation.locator(".document h3")).to_have_text(ARCHIVE)
        await expect(documentation.locator(".document h4")).to_have_text(list(SECTIONS))
        charts = documentation.locator(".document-table").first
        await expect(charts.locator("tbody")).to_contain_text(ARCHIVE_CHART)
        await expect(documentation.locator(".document-meta")).to_contain_text(
            "составлена по шаблону"
        )
        await expect(documentation.locator(".document-meta")).to_contain_text(
            "сохранена, в git не закоммичена"
        )
        await _screenshots(page, "dashboard-results")

        # A document a model might write to attack the page: shown, never run.
        engine = create_engine(s.settings.database_url)
        async with session_factory(engine)() as session:
            session.add(
                DashboardDocument(
                    env_id=ENV,
                    dashboard_id=archive,
                    dashboard_uuid=report["dashboard_uuid"],
                    task_id="f" * 32,
                    author="model",
                    markdown=HOSTILE,
                    git_path="docs/x.md",
                    git_commit=None,
                )
            )
            await session.commit()
        await engine.dispose()
        await page.reload()
        body = documentation.locator(".document")
        await expect(body).to_contain_text("Текст <script>alert('doc')</script> и <img src=x")
        await expect(body.locator("table")).to_contain_text("""<b onmouseover="alert('cell')">""")
        await expect(body.locator("script, img, b, a")).to_have_count(0)
        await body.locator("td").first.hover()
        await page.wait_for_timeout(300)
        assert s.dialogs == []
        assert s.console_errors == []
