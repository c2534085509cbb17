"""Records real tool answers from the sandbox into ``bench/data/answers/`` for the SC-004 bench.

Each tool's own HTTP call (its ``build``) goes to the real app in process, on the real Superset
sandbox, with realistic arguments; the answer is stored as it came, with the tool, arguments and
scope that produced it.
Large answers (hundreds of dashboards, rows, columns, findings) are grown from the recorded ones,
item shapes kept, so the bench measures sizes a big installation produces.

Run with the sandbox up: ``.venv/bin/python -m bench.record_answers``. Nothing in Superset
changes: git commits, branches and backups land in a temporary directory.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

from sstools.agent.context import ObjectType
from sstools.agent.tools import CATALOGUE, CallScope, ToolRequest
from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import add_user
from sstools.config import Settings
from sstools.storage.db import create_engine, migrate, session_factory
from sstools.testing.recorded import ANSWERS, RecordedAnswer

ENV = "ss-dev"
ENVIRONMENTS = Path(".sandbox/environments.yaml")
DASHBOARD = 10
_FINISHED = ("succeeded", "failed", "cancelled")


class Recorder:
    """Sends each tool's request as the executor would, and keeps the answer."""

    def __init__(self, client: httpx.AsyncClient, token: str) -> None:
        self.client, self.token = client, token
        self.answers: list[RecordedAnswer] = []

    async def send(self, request: ToolRequest) -> Any:
        response = await self.client.request(
            request.method,
            request.path,
            params=request.params,
            json=request.json_body,
            headers={"Authorization": f"Bearer {self.token}"},
        )
        response.raise_for_status()
        return response.json()

    async def record(self, case: str, tool: str, args: dict[str, Any], scope: CallScope) -> Any:
        spec = CATALOGUE[tool]
        assert spec.build is not None, tool
        payload = await self.send(spec.build(spec.args_model.model_validate(args), scope))
        self.answers.append(
            RecordedAnswer(case=case, tool=tool, args=args, scope=scope, payload=payload)
        )
        return payload

    async def finished(self, case: str, task_id: str) -> Any:
        request = CATALOGUE["get_task_status"].build
        assert request is not None
        args = CATALOGUE["get_task_status"].args_model.model_validate({"task_id": task_id})
        for _ in range(240):
            task = await self.send(request(args, CallScope()))
            if task.get("status") in _FINISHED:
                return await self.record(case, "get_task_status", {"task_id": task_id}, CallScope())
            await asyncio.sleep(0.5)
        raise RuntimeError(f"task {task_id} did not finish")


async def _dataset_id(recorder: Recorder) -> int:
    found = await recorder.send(
        ToolRequest(
            method="GET", path="/api/datasets", params={"env_id": ENV, "q": "energy_consumption"}
        )
    )
    rows = found["items"] if isinstance(found, dict) else found
    return int(next(row["id"] for row in rows if row["name"] == "energy_consumption"))


async def _admin(settings: Settings) -> None:
    migrate(settings.database_url)
    engine = create_engine(settings.database_url)
    async with session_factory(engine)() as session:
        await add_user(session, "admin", Role.admin, secrets.token_urlsafe(16))
    await engine.dispose()


async def record_real(settings: Settings) -> list[RecordedAnswer]:
    await _admin(settings)
    app = create_app(settings)
    token = issue_token(settings, Principal(username="admin", role=Role.admin))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://sstools.internal", timeout=300
        ) as client,
    ):
        run = Recorder(client, token)
        env = CallScope(env_id=ENV)
        board = CallScope(env_id=ENV, object_type=ObjectType.dashboard, object_id=DASHBOARD)
        dataset = CallScope(
            env_id=ENV, object_type=ObjectType.dataset, object_id=await _dataset_id(run)
        )
        listed = await run.record("search_all", "search_dashboards", {}, env)
        await run.record("search_energy", "search_dashboards", {"query": "энерг"}, env)
        await run.record("health", "get_health_summary", {}, board)
        await run.record("dataset_overview", "superset_explore_database", {}, dataset)
        await run.record("databases", "superset_explore_database", {}, env)
        await run.record("schemas", "superset_explore_database", {"database_id": 1}, env)
        main = {"database_id": 1, "schema_name": "main"}
        await run.record("tables", "superset_explore_database", main, env)
        table = {**main, "table": "energy_consumption"}
        await run.record("columns", "superset_explore_database", table, env)
        sql = (
            "select region, sector, sum(consumption_mwh) as mwh"
            " from energy_consumption group by 1, 2"
        )
        await run.record("format_sql", "superset_format_sql", {"sql": sql}, env)
        await run.record("audit_dataset", "superset_audit_permissions", {}, dataset)
        await run.record(
            "audit_dashboard",
            "superset_audit_permissions",
            {"object_type": "dashboard", "object_id": DASHBOARD},
            env,
        )
        await run.record("sql_grouped", "superset_execute_sql", {"sql": sql, "database_id": 1}, env)
        rows = {"sql": "select * from energy_consumption", "database_id": 1, "limit": 1000}
        await run.record("sql_1000_rows", "superset_execute_sql", rows, env)
        await run.record("environments", "list_environments", {}, env)
        await run.record("commit", "commit_changes", {"message": "bench: record answers"}, board)
        await run.record("branch_created", "create_branch", {"name": "feature/bench-answers"}, env)
        await run.record("git_status_dashboard", "get_git_status", {}, board)
        await run.record("git_status_env", "get_git_status", {}, env)
        await run.record("branches", "list_branches", {}, env)
        started = [
            await run.record("validation_started", "run_llm_validation", {}, board),
            await run.record("documentation_started", "run_llm_documentation", {}, board),
            await run.record("backup_started", "run_backup", {}, env),
        ]
        for case, task in zip(("validation", "documentation", "backup"), started, strict=True):
            await run.finished(f"{case}_finished", task["id"])
        await run.record("tasks", "list_tasks", {}, env)
        await run.record("backups", "list_backups", {}, env)
        await run.record("drift", "get_drift", {}, env)
        await run.record("timeline", "get_dashboard_timeline", {}, board)
        await run.record("dashboard_data", "get_dashboard_data", {}, board)
        migration = {"target_env_id": "staging", "dashboard_ids": [DASHBOARD]}
        await run.record("migration_plan", "preview_migration", migration, env)
        everything = {
            "target_env_id": "staging",
            "dashboard_ids": [d["id"] for d in listed["items"]],
        }
        await run.record("migration_plan_all", "preview_migration", everything, env)
        return run.answers


def _grown(answer: RecordedAnswer, case: str, payload: Any) -> RecordedAnswer:
    return answer.model_copy(update={"case": case, "payload": payload})


def _renumbered(item: dict[str, Any], index: int) -> dict[str, Any]:
    """A copy of a recorded item as the ``index``-th of many: its ids and names made unique."""
    made = copy.deepcopy(item)
    for key, value in made.items():
        if key == "id" and isinstance(value, int):
            made[key] = 1000 + index
        elif key in ("title", "name", "object_name") and isinstance(value, str):
            made[key] = f"{value} {index}"
        elif key in ("url", "sstools_url", "superset_url") and isinstance(value, str):
            made[key] = re.sub(r"/\d+(/?)$", rf"/{1000 + index}\1", value)
    return made


def _many(items: list[Any], count: int) -> list[Any]:
    return [
        _renumbered(items[i % len(items)], i)
        if isinstance(items[0], dict)
        else items[i % len(items)]
        for i in range(count)
    ]


def grow(real: list[RecordedAnswer]) -> list[RecordedAnswer]:
    """Answers of a big installation, grown from the recorded ones (shapes kept)."""
    by_case = {answer.case: answer for answer in real}
    grown: list[RecordedAnswer] = []

    search = by_case["search_all"]
    page = dict(search.payload, total=340)
    page["items"] = _many(search.payload["items"], len(search.payload["items"]))
    grown.append(_grown(search, "search_340_dashboards", page))

    overview = copy.deepcopy(by_case["dataset_overview"].payload)
    overview["columns"] = _many(overview["columns"], 150)
    overview["charts"] = _many(overview["charts"] or [{"id": 1, "name": "График"}], 60)
    overview["dashboards"] = _many(overview["dashboards"] or [{"id": 1, "title": "Дашборд"}], 25)
    overview["metrics"] = _many(overview["metrics"] or ["count"], 30)
    grown.append(_grown(by_case["dataset_overview"], "dataset_150_columns", overview))

    columns = by_case["columns"]
    grown.append(_grown(columns, "columns_200", _many(columns.payload, 200)))

    tables = by_case["tables"]
    grown.append(_grown(tables, "tables_300", [f"table_{i}" for i in range(300)]))

    health = copy.deepcopy(by_case["health"].payload)
    health["charts"] = _many(health["charts"], 45)
    health["problems"] = [f"график «Chart {i}»: данные недоступны" for i in range(6)]
    grown.append(_grown(by_case["health"], "health_45_charts", health))

    validation = copy.deepcopy(by_case["validation_finished"].payload)
    findings = validation["result"].get("findings") or []
    if findings:
        validation["result"]["findings"] = _many(findings, 80)
        for index, finding in enumerate(validation["result"]["findings"]):
            finding["severity"] = ("error", "warning", "warning", "info")[index % 4]
        validation["result"]["counts"] = {"error": 20, "warning": 40, "info": 20}
        grown.append(_grown(by_case["validation_finished"], "validation_80_findings", validation))

    tasks = by_case["tasks"]
    task_items = tasks.payload if isinstance(tasks.payload, list) else tasks.payload["items"]
    grown.append(_grown(tasks, "tasks_50", _many(task_items, 50)))

    status = copy.deepcopy(by_case["git_status_env"].payload)
    if status.get("dashboards"):
        status["dashboards"] = _many(status["dashboards"], 100)
        grown.append(_grown(by_case["git_status_env"], "git_status_100_dashboards", status))

    plan = copy.deepcopy(by_case["migration_plan"].payload)
    plan["objects"] = _many(plan["objects"], 220)
    for index, item in enumerate(plan["objects"]):  # a big plan changes some of what it moves
        if index % 9 == 0:
            item.update(action="update", fields=["params", "query_context"])
        elif index % 25 == 1:
            item.update(action="create", fields=[], target_id=None)
    plan["dashboards_changed"] = 12
    plan["summary"] = "12 дашбордов будут изменены в staging"
    grown.append(_grown(by_case["migration_plan"], "migration_plan_220_objects", plan))

    branches = by_case["branches"]
    many = _many(branches.payload, 60)
    for index, branch in enumerate(many):  # one default branch, as in any repository
        branch["default"] = index == 1
    grown.append(_grown(branches, "branches_60", many))
    return grown


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        settings = Settings(
            _env_file=None,
            database_url=f"sqlite:///{tmp / 'sstools.db'}",
            checkpoints_file=tmp / "checkpoints.db",
            environments_file=ENVIRONMENTS.resolve(),
            git_dir=tmp / "git",
            backup_dir=tmp / "backups",
            llm_base_url=None,
        )
        real = asyncio.run(record_real(settings))
    ANSWERS.mkdir(parents=True, exist_ok=True)
    for stale in ANSWERS.glob("*.json"):
        stale.unlink()
    for answer in [*real, *grow(real)]:
        path = ANSWERS / f"{answer.case}.json"
        path.write_text(
            json.dumps(answer.model_dump(mode="json"), ensure_ascii=False) + "\n",
            encoding="utf-8",
        )
        print(
            f"{path}: {len(json.dumps(answer.payload, ensure_ascii=False))} chars", file=sys.stderr
        )


if __name__ == "__main__":
    main()
