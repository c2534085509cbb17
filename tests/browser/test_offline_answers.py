"""Answers people read, on the real sandbox: every tool's real result, rendered for the offline
mode, has no tool id, no True/False, no raw ISO timestamp and no English description; the page
shows them as the agent does (markdown through DOMPurify), and a card shows labelled arguments."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, Page, expect

from sstools.agent.capabilities import capabilities
from sstools.agent.context import ObjectType, UIContext
from sstools.agent.executor import Outcome, ToolExecutor
from sstools.agent.offline.answers import Hint, render, render_content
from sstools.agent.selection import select_tools
from sstools.agent.tools import CATALOGUE, CallScope
from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.config import Settings
from sstools.testing import LiveServer, ScriptedChatModel, answer
from tests.browser.conftest import Site, ask, drift, screenshot
from tests.integration.deploy_support import Restore, Superset

ENV = "ss-dev"
ISO = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
# English sentences the APIs themselves produce; a person reads them in Russian.
ENGLISH = ("regardless of grants", "a data grant covering", "e.g. datasource_access", "Not found")
AGENT = (
    "/agent?objectType=dashboard&objectId=10&objectName={name}&envId=ss-dev&route=/dashboards/10"
)


def assert_readable(tool: str, text: str) -> None:
    """What a person must never read in an answer."""
    assert not re.search(r"\b(True|False|true|false|null|None)\b", text), (tool, text)
    assert not ISO.search(text), (tool, text)
    for name, spec in CATALOGUE.items():
        assert name not in text, (tool, name, text)
        for sentence in re.split(r"(?<=[.;:])\s+", spec.description):
            assert len(sentence) < 25 or sentence not in text, (tool, sentence)
    for english in ENGLISH:
        assert english not in text, (tool, english, text)


class Runner:
    """Runs tools as the agent does (the same executor, over the app) and renders each result."""

    def __init__(self, executor: ToolExecutor, token: str) -> None:
        self.executor, self.token = executor, token
        self.answers: dict[str, list[str]] = {}

    async def call(self, tool: str, args: dict[str, Any], scope: CallScope) -> Any:
        spec = CATALOGUE[tool]
        result = await self.executor.execute(
            spec,
            spec.args_model.model_validate(args),
            scope,
            token=self.token,
            username="admin",
        )
        text = render_content(tool, result.content, args=args, env_id=scope.env_id)
        self.answers.setdefault(tool, []).append(text)
        return result

    async def preview(self, tool: str, args: dict[str, Any], scope: CallScope) -> Any:
        """A write's real result shape where running it is not safe on a shared sandbox: its
        plan (the same JSON the confirmation card is built from)."""
        spec = CATALOGUE[tool]
        assert spec.preview is not None
        planned = await self.executor.preview(
            spec.preview(spec.args_model.model_validate(args), scope), self.token
        )
        plan = planned.answer
        assert plan is not None, (tool, planned.problem)
        self.answers.setdefault(tool, []).append(render(tool, plan, Hint(env_id=scope.env_id)))
        return plan

    async def finished(self, task_id: str) -> None:
        """get_task_status until the task ends (rendered each time it is asked)."""
        for _ in range(120):
            result = await self.call("get_task_status", {"task_id": task_id}, CallScope())
            if json.loads(result.content).get("status") in ("succeeded", "failed", "cancelled"):
                return
            await asyncio.sleep(0.5)
        raise AssertionError(f"task {task_id} did not finish")


async def _dataset_id(client: httpx.AsyncClient, headers: dict[str, str]) -> int:
    found = (
        await client.get(f"/api/datasets?env_id={ENV}&q=energy_consumption", headers=headers)
    ).json()
    rows = found["items"] if isinstance(found, dict) else found
    return int(next(row["id"] for row in rows if row["name"] == "energy_consumption"))


async def _every_answer(settings: Settings) -> dict[str, list[str]]:
    app = create_app(settings)
    token = issue_token(settings, Principal(username="admin", role=Role.admin))
    headers = {"Authorization": f"Bearer {token}"}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        executor = ToolExecutor(
            base_url="http://sstools.internal",
            transport=transport,
            timeout_s=120,
            sessions=app.state.services.sessions,
        )
        async with httpx.AsyncClient(transport=transport, base_url="http://sstools.test") as client:
            dataset = await _dataset_id(client, headers)
        run = Runner(executor, token)
        env = CallScope(env_id=ENV)
        board = CallScope(env_id=ENV, object_type=ObjectType.dashboard, object_id=10)
        on_dataset = CallScope(env_id=ENV, object_type=ObjectType.dataset, object_id=dataset)

        await run.call("search_dashboards", {}, env)
        await run.call("get_health_summary", {}, board)
        validation = await run.call("run_llm_validation", {}, board)
        documentation = await run.call("run_llm_documentation", {}, board)
        backup = await run.call("run_backup", {}, env)
        await run.call("superset_explore_database", {}, on_dataset)
        await run.call("superset_explore_database", {}, env)
        await run.call("superset_explore_database", {"database_id": 1}, env)
        await run.call("superset_explore_database", {"database_id": 1, "schema_name": "main"}, env)
        table = {"database_id": 1, "schema_name": "main", "table": "energy_consumption"}
        await run.call("superset_explore_database", table, env)
        await run.call(
            "superset_format_sql", {"sql": "select region, sum(x) from t group by 1"}, env
        )
        await run.call("superset_audit_permissions", {}, on_dataset)
        sql = "select region, count(*) as days from energy_consumption group by region"
        await run.call("superset_execute_sql", {"sql": sql, "database_id": 1}, env)
        missing = {
            "database_id": 1,
            "schema_name": "main",
            "table": f"no_table_{uuid.uuid4().hex[:6]}",
        }
        created = await run.call("superset_create_dataset", missing, env)
        assert created.outcome is Outcome.error  # a real refusal: nothing is created
        await run.call("list_environments", {}, env)
        await run.call("create_branch", {"name": f"feature/answers-{uuid.uuid4().hex[:6]}"}, env)
        await run.call("commit_changes", {"message": "answers people read"}, board)
        await run.call("get_git_status", {}, board)
        await run.call("get_dashboard_timeline", {}, board)
        await run.call("get_dashboard_data", {}, board)
        await run.call("list_branches", {}, env)
        for started in (validation, documentation, backup):
            assert started.task_id, started.content
            await run.finished(started.task_id)
        await run.call("list_tasks", {}, env)
        await run.call("list_backups", {}, env)
        await run.call("get_drift", {}, env)
        backup_id = re.search(r"ss-dev\.\d{8}T\d+Z", run.answers["list_backups"][-1])
        assert backup_id is not None, run.answers["list_backups"]
        restore = {"backup_id": backup_id.group(0), "target_env_id": "staging"}
        await run.preview("restore_backup", restore, env)
        await run.preview("deploy_dashboard", {"target_env_id": "prod"}, board)
        await run.preview("execute_migration", {"target_env_id": "staging"}, board)
        await run.call(
            "preview_migration", {"target_env_id": "staging", "dashboard_ids": [10]}, env
        )
        await run.call("rollback_deploy", {"task_id": "nosuchtask", "env_id": "staging"}, env)
        context = UIContext.model_validate(
            {"contextVersion": 1, "objectType": "dashboard", "objectId": "10", "envId": ENV}
        )
        offered = capabilities(select_tools(Role.analyst, context), ObjectType.dashboard)
        run.answers["show_capabilities"] = [render("show_capabilities", offered)]
        return run.answers


async def _show(page: Page, answers: dict[str, list[str]]) -> None:
    """Each answer as the page shows an agent message: markdown, sanitised by DOMPurify."""
    await page.wait_for_function("() => window.marked && window.DOMPurify")
    blocks = [
        f"**{CATALOGUE[tool].title}**\n\n{text}"
        for tool in CATALOGUE
        for text in answers[tool][-1:]
    ]
    await page.evaluate(
        """(blocks) => {
          const transcript = document.getElementById("transcript");
          for (const text of blocks) {
            const message = document.createElement("div");
            message.className = "msg assistant";
            message.innerHTML = window.DOMPurify.sanitize(window.marked.parse(text),
              { USE_PROFILE: { html: true } });
            transcript.append(message);
          }
        }""",
        blocks,
    )


async def test_every_tool_reads_in_russian_from_a_real_result(
    settings: Settings, browser: Browser, tmp_path: Path
) -> None:
    answers = await _every_answer(settings)
    assert set(answers) == set(CATALOGUE)
    for tool, texts in answers.items():
        for text in texts:
            assert text.strip(), tool
            assert_readable(tool, text)
    health = answers["get_health_summary"][0]
    assert re.match(r"«Отчёт по энергопотреблению» в ss-dev: (в порядке|есть проблемы)", health)
    assert "[в sstools](/dashboards/10?env_id=ss-dev)" in health
    assert answers["superset_execute_sql"][0].startswith("Запрос вернул ")
    assert "Проверка дашборда «Отчёт по энергопотреблению»: выполнена." in "".join(
        answers["get_task_status"]
    )
    assert answers["superset_create_dataset"][0].startswith("Не получилось: ")
    assert answers["list_environments"][0].startswith("Окружений: 3")
    assert answers["get_dashboard_data"][0].startswith("Данные без фильтров")  # the page had none
    drifted = answers["get_drift"][0]
    assert drifted.startswith("Расхождения на "), drifted
    assert "**prod** (prod)" in drifted, drifted

    with LiveServer(
        create_app(settings, chat_model=ScriptedChatModel(script=answer("—")))
    ) as server:
        site = Site(server, ScriptedChatModel(script=answer("—")), settings, browser)
        page = await site.page("/agent?envId=ss-dev")
        await _show(page, answers)
        messages = page.locator(".msg.assistant")
        await expect(messages).to_have_count(len(CATALOGUE))
        shown = "\n".join(await messages.all_inner_texts())
        assert_readable("page", shown)
        assert await page.locator(".msg.assistant table").count() >= 5  # tables, not JSON dumps
        assert await page.locator(".msg.assistant a[href^='javascript']").count() == 0
        await page.screenshot(path=str(tmp_path / "offline-answers.png"), full_page=True)
        await screenshot(page, "offline-answers")


async def test_offline_health_answer_and_a_card_with_labelled_arguments(
    settings: Settings, browser: Browser, tmp_path: Path, superset: Superset, restore: Restore
) -> None:
    """No model configured: the offline planner answers on the page, and a deploy to prod asks
    with «Дашборд: … (#10)» and «Куда: prod (Superset prod)», not JSON; denied, nothing runs."""
    await restore("prod")
    await drift(superset, "prod")  # else the plan changes nothing and there is nothing to ask
    with LiveServer(create_app(settings)) as server:
        site = Site(server, ScriptedChatModel(script=answer("—")), settings, browser)
        page = await site.page(AGENT.format(name="Отчёт по энергопотреблению"))
        await ask(page, "какой статус у этого дашборда?")
        reply = page.locator(".msg.assistant").last
        await expect(reply).to_contain_text("Отчёт по энергопотреблению» в ss-dev:")
        await expect(reply).to_contain_text("Изменён: ")
        assert_readable("get_health_summary", await reply.inner_text())
        await expect(reply.locator("a", has_text="в sstools")).to_have_attribute(
            "href", "/dashboards/10?env_id=ss-dev"
        )
        await page.screenshot(path=str(tmp_path / "offline-health.png"), full_page=True)
        await screenshot(page, "offline-health")

        await ask(page, "выкати этот дашборд в prod")
        card = page.locator(".card.tone-destructive")
        await expect(card).to_be_visible(timeout=30_000)
        labels = card.locator(".card-args dt")
        values = card.locator(".card-args dd")
        await expect(labels).to_have_text(["Дашборд", "Куда", "Откуда"])
        await expect(values).to_have_text(
            ["Отчёт по энергопотреблению (#10)", "prod (Superset prod)", "ss-dev (Superset dev)"]
        )
        assert "{" not in await card.inner_text()  # no raw JSON arguments
        await page.screenshot(path=str(tmp_path / "offline-card.png"), full_page=True)
        await screenshot(page, "card-arguments")
        await card.locator("button", has_text="Отклонить").click()
        await expect(card).to_have_attribute("data-decided", "deny")
    print(f"screenshots: {tmp_path}")


async def test_the_query_that_ran_wraps_inside_its_answer_on_a_phone(
    settings: Settings, browser: Browser
) -> None:
    """A SELECT the planner wrote from words is shown after its rows, whole, on a 390 px screen."""
    sql = (
        'SELECT "region", AVG("avg_temp_c") AS "avg_temp_c" FROM "main"."weather_daily" WHERE '
        "CAST(strftime('%m', \"day\") AS INTEGER) IN (6, 7, 8) GROUP BY 1 ORDER BY 1"
    )
    payload = {"columns": ["region", "avg_temp_c"], "rows": [["Москва", 19.8]], "row_count": 1}
    shown = render_content("superset_execute_sql", json.dumps(payload), {"sql": sql})
    with LiveServer(
        create_app(settings, chat_model=ScriptedChatModel(script=answer("—")))
    ) as server:
        site = Site(server, ScriptedChatModel(script=answer("—")), settings, browser)
        page = await site.page("/agent?envId=ss-dev")
        await page.set_viewport_size({"width": 390, "height": 844})
        await _show(page, {tool: [shown] for tool in CATALOGUE})
        query = page.locator(".msg.assistant pre").first
        await expect(query).to_contain_text("ORDER BY 1")
        assert await query.evaluate("box => box.scrollWidth <= box.clientWidth + 1")  # not cut
        await screenshot(page, "offline-query-phone")
