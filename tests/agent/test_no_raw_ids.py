"""Nothing raw in what a person reads of the offline agent, whatever the tool (issue 20 §4).

Every tool of the catalogue answers here as the domain API answers it — the answers recorded on
the sandbox, and for the writes a recording must not make (deploy, migration, rollback, restore,
a new dataset) task records and plans built by the API's own models, in every state a person
meets: started, running (progress named as the workflows name it, and as older servers did, by
UUID), finished, failed, refused. Each goes the offline agent's way (the tool's shape, then the
renderer) and the text must hold no role id, no tool id, no 32-hex task id and no UUID: a
dashboard is named by its title, a task or a snapshot by words or its first 8 hex digits.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from sstools.agent import explain
from sstools.agent.capabilities import capabilities
from sstools.agent.context import ObjectType, UIContext
from sstools.agent.offline.answers import render_content
from sstools.agent.selection import select_tools
from sstools.agent.summarize import for_model, summarize
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role
from sstools.domain.deploy.rollback import RollbackPlan, SnapshotUnusable
from sstools.tasks import TaskConflict, TaskFinished, TaskNotFound
from sstools.tasks.models import Task
from sstools.testing.recorded import recorded
from sstools.texts import backups as backup_texts
from sstools.texts import deploy as deploy_texts
from tests.reading import disagreements, english_words

RAW = {
    "role id": re.compile(r"\b(?:analyst|engineer|admin)\b"),
    "tool id": re.compile(r"\b(?:" + "|".join(map(re.escape, CATALOGUE)) + r")\b"),
    "32-hex id": re.compile(r"(?<![0-9a-fA-F])[0-9a-fA-F]{32}(?![0-9a-fA-F])"),
    "UUID": re.compile(
        r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    ),
}

# Ids as the sandbox makes them: a task is 32 hex digits, a Superset object a UUID.
DEPLOY_TASK = "3f9c2b7e6a1d4e0f8b5c9a2d7e4f1a6b"
ROLLBACK_TASK = "c0ffee1234564d8a9b0c1d2e3f405162"
RESTORE_TASK = "5e1d0c9b8a7f4e6d5c4b3a2918070605"
DASHBOARD_UUID = "706802f5-80e9-4c4f-a68d-b46628971219"
CREATED_UUID = "2ada94d9-6c3e-4b1f-9d2a-8e7f6a5b4c3d"
CHART_UUID = "4b294abf-3ba8-4fcb-b767-d52982a6515e"
COMMIT = "9a8b7c6d5e4f30211e2d3c4b5a69788796a5b4c3"
TITLE = "Отчёт по энергопотреблению"
CREATED_TITLE = "Прогноз нагрузки (черновик)"
BACKUP = "prod.20261130T090112635296Z"
SUPERSET_500 = "Superset ответил 500: Internal Server Error"
PERSON = "irina"  # a login as a fleet has them: the sandbox's own is «admin», a role's id


@dataclass(frozen=True)
class Case:
    name: str
    tool: str
    payload: Any
    args: dict[str, Any] = field(default_factory=dict)
    env_id: str | None = "ss-dev"
    error: bool = False  # the payload is the executor's error words, not an answer


def _people(value: Any) -> Any:
    """The sandbox's user «admin» renamed to a person's login wherever a person is named."""
    if isinstance(value, dict):
        return {
            key: (
                item.replace("admin", PERSON)
                if key in ("started_by", "created_by", "author", "deployed_by")
                and isinstance(item, str)
                else _people(item)
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_people(item) for item in value]
    return value


def _task(kind: str, task_id: str, status: str = "queued", **fields: Any) -> dict[str, Any]:
    record = {
        "id": task_id,
        "kind": kind,
        "objects": [TITLE],
        "env_id": "prod",
        "source": "ss-dev",
        "started_by": PERSON,
        "status": status,
        "progress": None,
        "result": None,
        "error": None,
        "created_at": "2026-11-30T09:01:12.636303Z",
        "started_at": None if status == "queued" else "2026-11-30T09:01:12.653592Z",
        "finished_at": None if status in ("queued", "running") else "2026-11-30T09:01:19.1Z",
    } | fields
    return Task.model_validate(record).model_dump(mode="json")  # the API's shape, validated


SNAPSHOT = {  # take_snapshot's answer, with what the plan creates (apply.py)
    "branch": f"snapshots/{DEPLOY_TASK}",
    "commit": COMMIT,
    "dashboards": [DASHBOARD_UUID],
    "files": 7,
    "created_dashboards": [CREATED_UUID],
    "created_charts": [CHART_UUID],
}
DEPLOYED = {"target_env_id": "prod", "unchanged": [], "snapshot": SNAPSHOT}
DEPLOYED |= {"imported": [TITLE, CREATED_TITLE], "not_imported": []}
ROLLBACK_SOURCE = f"git:snapshots/{DEPLOY_TASK}@{COMMIT[:12]}"  # as the rollback route sets it
ROLLED_BACK = {  # the rollback workflow's result
    "restored": [TITLE],
    "unchanged": [],
    "deleted": [CREATED_TITLE, "Прогноз по часам"],
    "deleted_dashboards": [CREATED_UUID],
    "deleted_charts": [CHART_UUID],
    "snapshot_branch": f"snapshots/{DEPLOY_TASK}",
    "snapshot_commit": COMMIT,
}
# A rollback that ran before results named dashboards by title: UUIDs only.
ROLLED_BACK_BEFORE = ROLLED_BACK | {"restored": [DASHBOARD_UUID]}
ROLLED_BACK_BEFORE.pop("deleted")
SUPERSET_DOWN = f"prod: {SUPERSET_500}"


@dataclass(frozen=True)
class Started:
    """A task-starting tool and the task it starts, as the workflow records it."""

    tool: str
    args: dict[str, Any]
    kind: str
    task_id: str
    step: str  # the workflow's step name, with {title}
    done: Any
    error: str
    partial: Any  # the result a failed task keeps
    source: str = "ss-dev"


STARTED = [
    Started(
        tool,
        {"target_env_id": "prod"},
        kind,
        DEPLOY_TASK,
        deploy_texts.STEP_IMPORT,
        DEPLOYED,
        deploy_texts.IMPORT_FAILED.format(title=CREATED_TITLE, error=SUPERSET_DOWN),
        DEPLOYED | {"imported": [TITLE], "not_imported": [CREATED_TITLE]},
    )
    for tool, kind in (("deploy_dashboard", "deploy"), ("execute_migration", "migration"))
]
STARTED += [
    Started(
        "rollback_deploy",
        {"task_id": DEPLOY_TASK, "env_id": "prod"},
        "rollback",
        ROLLBACK_TASK,
        deploy_texts.STEP_RESTORE,
        ROLLED_BACK,
        deploy_texts.ROLLBACK_FAILED.format(error=SUPERSET_DOWN),
        {"restored": [], "not_restored": [TITLE], "snapshot_commit": COMMIT},
        ROLLBACK_SOURCE,
    ),
    Started(
        "restore_backup",
        {"backup_id": BACKUP, "target_env_id": "prod"},
        "restore",
        RESTORE_TASK,
        "восстановление дашборда {title}",  # a restore's progress as issue 20 saw it
        {"imported": {"dashboards": 13, "charts": 10}, "not_imported_charts": []},
        backup_texts.IMPORT_FAILED.format(env="prod", error=SUPERSET_DOWN),
        {"imported": None},
        f"backup:{BACKUP}",
    ),
]


def _progress(step: int, total: int, name: str) -> dict[str, Any]:
    return {"progress": {"step": step, "total": total, "name": name}}


def _task_cases(started: Started) -> list[Case]:
    """The tool's 202, then get_task_status while it runs, after it, and when it failed."""
    states: list[tuple[str, dict[str, Any]]] = [
        ("running", {"status": "running", **_progress(2, 3, started.step.format(title=TITLE))}),
        # An older server (or a dashboard Superset lost the title of) named it by its UUID.
        (
            "running, by uuid",
            {"status": "running", **_progress(2, 3, started.step.format(title=DASHBOARD_UUID))},
        ),
        ("done", {"status": "succeeded", "result": started.done}),
        ("failed", {"status": "failed", "result": started.partial, "error": started.error}),
    ]
    if started.kind == "rollback":
        states.append(("done before titles", {"status": "succeeded", "result": ROLLED_BACK_BEFORE}))
    tool, task_id, source = started.tool, started.task_id, started.source
    out = [
        Case(f"{tool}: started", tool, _task(started.kind, task_id, source=source), started.args)
    ]
    for name, state in states:
        record = _task(started.kind, task_id, source=source, **state)
        out.append(Case(f"{tool}: {name}", "get_task_status", record, {"task_id": task_id}))
    return out


def _rollback_plan() -> dict[str, Any]:
    recorded_plan = next(a for a in recorded() if a.case == "migration_plan").payload
    deleted = {
        "kind": "dashboard",
        "uuid": CREATED_UUID,
        "name": CREATED_TITLE,
        "action": "delete",
        "fields": [],
        "target_id": 31,
        "target_changed_on": "2026-11-30T09:01:19Z",
    }
    plan = recorded_plan | {
        "source": {"env_id": None, "git_ref": f"snapshots/{DEPLOY_TASK}"},
        "target_env_id": "prod",
        "target_stage": "prod",
        "objects": [deleted, *recorded_plan["objects"]],
        "dashboards_changed": 1,
        "summary": deploy_texts.rollback_summary(
            task_id=DEPLOY_TASK,
            deployed_by=PERSON,
            restore_summary="",
            restores=0,
            deleted_dashboards=1,
            deleted_charts=0,
        ),
        "deploy_task_id": DEPLOY_TASK,
        "deployed_by": PERSON,
        "snapshot_branch": f"snapshots/{DEPLOY_TASK}",
        "snapshot_commit": COMMIT,
    }
    return RollbackPlan.model_validate(plan).model_dump(mode="json")


def _refusals() -> list[Case]:
    """What the executor says of a refused call: the server's words inside explain's."""
    running = Task.model_validate(_task("deploy", DEPLOY_TASK, "running", **_progress(1, 3, "x")))
    restoring = Task.model_validate(_task("restore", RESTORE_TASK, "running"))
    refusals = [
        ("deploy_dashboard", str(TaskConflict(running))),
        ("execute_migration", str(TaskConflict(running))),
        ("restore_backup", str(TaskConflict(restoring))),
        ("rollback_deploy", str(SnapshotUnusable(DEPLOY_TASK, deploy_texts.ROLLBACK_UNPINNED))),
        ("rollback_deploy", deploy_texts.ROLLBACK_NOT_OWNER.format(task=DEPLOY_TASK, owner=PERSON)),
        ("rollback_deploy", deploy_texts.ROLLBACK_UNFINISHED.format(task=DEPLOY_TASK)),
        ("get_task_status", str(TaskNotFound(ROLLBACK_TASK))),
    ]
    out = [
        Case(
            f"{tool}: refused {n}",
            tool,
            {"error": explain.failed(CATALOGUE[tool].title, text)},
            error=True,
        )
        for n, (tool, text) in enumerate(refusals)
    ]
    for tool in ("deploy_dashboard", "superset_execute_sql", "run_backup"):
        words = explain.permission_denied(CATALOGUE[tool].title, ["engineer"], "analyst")
        out.append(Case(f"{tool}: 403", tool, {"error": words}, error=True))
    return out


def _capabilities() -> list[Case]:
    out = []
    for role in Role:
        for object_type in (None, *ObjectType):
            context = UIContext.model_validate(
                {
                    "contextVersion": 1,
                    "objectType": object_type,
                    "envId": "ss-dev",
                    "objectId": None if object_type is None else "10",
                }
            )
            payload = capabilities(select_tools(role, context), object_type)
            out.append(
                Case(f"capabilities: {role.value} on {object_type}", "show_capabilities", payload)
            )
    return out


def cases() -> list[Case]:
    out = [Case(a.case, a.tool, _people(a.payload), a.args, a.scope.env_id) for a in recorded()]
    plan = next(a for a in recorded() if a.case == "migration_plan")
    out.append(Case("deploy plan", "deploy_dashboard", plan.payload, {"target_env_id": "staging"}))
    from_commit = plan.payload | {"source": {"env_id": None, "git_ref": COMMIT}}
    out.append(
        Case(
            "deploy plan from a commit", "deploy_dashboard", from_commit, {"target_env_id": "prod"}
        )
    )
    rollback_args = {"task_id": DEPLOY_TASK, "env_id": "prod"}
    out.append(Case("rollback plan", "rollback_deploy", _rollback_plan(), rollback_args))
    timeline = {  # the API's shape (domain.timeline.models), as the dashboard's page reads it
        "env_id": "ss-dev", "dashboard_id": 10, "uuid": "6f1c2b7e-6a1d-4e0f-8b5c-9a2d7e4f1a6b",
        "title": "Отчёт по энергопотреблению",
        "points": [
            {"kind": "snapshot", "when": "2026-12-01T10:00:00Z", "who": PERSON,
             "label": "снимок перед выкаткой", "env_id": "prod", "task_id": DEPLOY_TASK,
             "restore": {"git_commit": "a" * 40}},
            {"kind": "git", "when": "2026-11-30T09:00:00Z", "who": PERSON, "label": "KPI tiles",
             "env_id": None, "restore": {"git_commit": "b" * 40}},
        ],
    }  # fmt: skip
    out.append(Case("timeline", "get_dashboard_timeline", timeline))
    data = {
        "env_id": "ss-dev", "dashboard_id": 10,
        "filters": [{"column": "region", "op": "IN", "values": ["Москва"]}],
        "charts": [
            {"chart_id": 3, "name": "Потребление по регионам", "viz_type": "table",
             "columns": ["region", "SUM(consumption_mwh)"], "rows": [["Москва", 1523.5]],
             "row_count": 1, "truncated": False, "filters_applied": ["region"],
             "filters_skipped": [], "error": None},
            {"chart_id": 9, "name": "Тарифы", "viz_type": "table", "columns": [], "rows": [],
             "row_count": 0, "truncated": False, "filters_applied": [],
             "filters_skipped": ["region"], "error": "column not found"},
        ],
    }  # fmt: skip
    out.append(Case("dashboard data", "get_dashboard_data", data))
    for started in STARTED:
        out += _task_cases(started)
    snapshots = [
        {
            "name": f"snapshots/{task_id}",
            "default": False,
            "commit": {
                "id": COMMIT,
                "author": "sstools",
                "time": "2026-11-30T09:01:15Z",
                "message": deploy_texts.SNAPSHOT_MESSAGE.format(env="prod", task=task_id),
            },
        }
        for task_id in (DEPLOY_TASK, ROLLBACK_TASK)
    ]
    branches = next(a for a in recorded() if a.case == "branches")
    out.append(
        Case("branches with snapshots", "list_branches", _people(branches.payload) + snapshots)
    )
    created = {
        "id": 41,
        "name": "orders_by_region",
        "kind": "virtual",
        "sstools_url": "/datasets/41?env_id=ss-dev",
        "superset_url": "http://localhost:8081/explore/?datasource_type=table&datasource_id=41",
    }
    sql = "select region, sum(amount) from orders group by region"
    args = {"database_id": 1, "sql": sql, "name": "orders_by_region"}
    out.append(Case("dataset created", "superset_create_dataset", created, args))
    return out + _refusals() + _capabilities()


CASES = cases()


def rendered(case: Case) -> str:
    """The text the offline agent shows for the tool's result."""
    if case.error:
        content = summarize(case.payload)
    else:
        spec = CATALOGUE[case.tool]
        content = for_model(spec, spec.args_model.model_validate(case.args), case.payload)
    return render_content(case.tool, content, case.args, case.env_id)


def raw_ids(text: str) -> dict[str, list[str]]:
    found = {what: sorted(set(pattern.findall(text))) for what, pattern in RAW.items()}
    return {what: ids for what, ids in found.items() if ids}


def test_the_cases_cover_every_tool_of_the_catalogue() -> None:
    assert {case.tool for case in CASES} == set(CATALOGUE)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_no_raw_id_reaches_a_person(case: Case) -> None:
    text = rendered(case)
    assert raw_ids(text) == {}, text


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_every_answer_reads_as_russian_with_numbers_that_agree(case: Case) -> None:
    text = rendered(case)
    # What the fleet holds (names, columns, logins, a server's own error words) is data.
    data = [json.dumps([case.payload, case.args, case.env_id], ensure_ascii=False, default=str)]
    assert english_words(text, data) == [], text
    assert disagreements(text) == [], text


def _case(name: str) -> str:
    return rendered(next(case for case in CASES if case.name == name))


def test_tasks_are_named_by_titles_and_short_ids() -> None:
    running = _case("rollback_deploy: running, by uuid")
    assert f"- Номер задачи: `{ROLLBACK_TASK[:8]}`" in running
    assert f"восстановление «{DASHBOARD_UUID[:8]}…» из снимка" in running
    assert f"- Откуда: снимок перед выкаткой {DEPLOY_TASK[:8]}" in running
    assert f"спросите «статус задачи {ROLLBACK_TASK[:8]}» позже" in running
    started = _case("rollback_deploy: started")  # the chat follows it and says its end once
    assert started.splitlines()[0].endswith(": задача запущена.")
    assert "спросите" not in started
    done = _case("rollback_deploy: done")
    assert f"- Возвращены: «{TITLE}»" in done
    assert f"- Удалены созданные выкаткой: «{CREATED_TITLE}», «Прогноз по часам»" in done
    before = _case("rollback_deploy: done before titles")
    assert "- Возвращены: 1 дашборд" in before
    assert "- Удалены созданные выкаткой: 1 дашборд, 1 график" in before
    deployed = _case("deploy_dashboard: done")
    assert "Снимок цели до выкатки сохранён в git: выкатку можно откатить." in deployed
    plan = _case("rollback plan")
    assert f"в «prod» из снимка перед выкаткой {DEPLOY_TASK[:8]}." in plan.splitlines()[0]
    branches = _case("branches with snapshots")
    assert f"(снимок перед выкаткой {DEPLOY_TASK[:8]})" in branches
    listed = _case("tasks")
    assert "| Резервная копия (`8f623ae4`) |" in listed


def test_refusals_name_the_task_by_its_short_id() -> None:
    # The API gives the whole id back to a client (the task that holds the object, the one it
    # asked for); the person reads its first 8 hex digits.
    conflict = _case("deploy_dashboard: refused 0")
    assert f"уже выполняется задача {DEPLOY_TASK[:8]}… (" in conflict
    assert f"задачи '{ROLLBACK_TASK[:8]}…' нет" in _case("get_task_status: refused 6")
    assert f"откат задачи {DEPLOY_TASK[:8]} невозможен" in _case("rollback_deploy: refused 3")
    finished = Task.model_validate(_task("rollback", ROLLBACK_TASK, "succeeded"))
    assert str(TaskFinished(finished)) == f"задача {ROLLBACK_TASK[:8]} уже завершена (выполнена)"


def test_the_check_sees_each_kind_of_raw_id() -> None:
    # A check that finds nothing in these is blind.
    text = f"роль engineer, вызов superset_execute_sql, задача {DEPLOY_TASK}, график {CHART_UUID}"
    assert set(raw_ids(text)) == set(RAW)


def test_a_plan_from_a_commit_calls_it_a_commit_not_a_branch() -> None:
    plan = _case("deploy plan from a commit")
    assert f"что взято из коммита git {COMMIT[:8]}." in plan.splitlines()[0], plan
    assert COMMIT not in plan
