"""A question never becomes a write card (issue 20 §2), with no model configured.

Through the real graph and HTTP API, the offline planner answering: a question about what a
deploy, migration, rollback or restore would change is answered with the plan itself (the write
called with ``dry_run: true``), the backups and the history of deploys by their lists — no card,
no task, no write request sent — and the answer is in Russian. Each command counterpart still
gets its card. The tools talk to :class:`ToolServer`, which answers the plan and list routes and
records every request, so a test can tell a write was never sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sstools.agent.invocation import Cleared, NeedsConfirmation, Refused
from sstools.agent.offline.planner import OfflinePlanner, asks
from sstools.agent.texts import tools as tool_texts
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role
from sstools.storage.models import AuditEntry
from sstools.testing import LiveServer
from tests.agent.conftest import check_on_page
from tests.support import read_events, types

TASK_ID = "0123456789abcdef0123456789abcdef"
BACKUP_ID = "ss-dev.20261130T051038123456Z"
CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)


def _plan(target: str, **extra: Any) -> dict[str, Any]:
    """A plan as the domain API answers one: one dashboard changed, applicable."""
    change = {"kind": "dashboard", "uuid": "u1", "name": "Отчёт", "action": "update"}
    return {
        "source": {"env_id": "ss-dev"},
        "target_env_id": target,
        "target_stage": "prod" if target == "prod" else "staging",
        "dashboards": [change],
        "objects": [{**change, "fields": ["css"]}],
        "databases": [],
        "unresolved_charts": [],
        "dashboards_changed": 1,
        "applicable": True,
        "summary": f"1 из 1 дашборда изменится в {target}",
        "digest": "d" * 64,
        **extra,
    }


TASK = {
    "id": "f" * 32,
    "kind": "deploy",
    "objects": ["Отчёт"],
    "env_id": "prod",
    "source": "ss-dev",
    "started_by": "engineer",
    "status": "succeeded",
    "created_at": "2026-11-30T05:54:38Z",
}
BACKUPS = {
    "backups": [
        {
            "id": BACKUP_ID,
            "created_at": "2026-11-30T05:10:38Z",
            "created_by": "admin",
            "counts": {"dashboard": 3},
            "files": 12,
            "bytes": 40960,
        }
    ],
    "unreadable": [],
}


class ToolServer:
    """The API as the agent's tools see it: plans and lists answered, every request recorded."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        self.down: set[str] = set()  # environments whose plan cannot be made (they do not answer)
        self.named: dict[int, str] = {}  # dashboards by id, as /api/objects names them
        self.app = Starlette(routes=[Route("/{path:path}", self.handle, methods=["GET", "POST"])])

    @property
    def writes(self) -> list[tuple[str, str]]:
        """Requests that would change something: every POST that is not a plan."""
        return [(m, p) for m, p in self.requests if m == "POST" and not p.endswith("/plan")]

    async def handle(self, request: Request) -> Response:
        path = "/" + request.path_params["path"]
        self.requests.append((request.method, path))
        body = await request.json() if request.method == "POST" else {}
        if (
            path.endswith("/plan")
            and (body.get("target_env_id") or body.get("env_id")) in self.down
        ):
            return JSONResponse({"detail": "staging не отвечает"}, status_code=503)
        if path == "/api/deploy/plan":
            return JSONResponse(_plan(body["target_env_id"]))
        if path.endswith("/rollback/plan"):
            return JSONResponse(_plan(body["env_id"], deploy_task_id=TASK_ID))
        if path.endswith("/restore/plan"):
            return JSONResponse(_plan(body["target_env_id"], backup_id=BACKUP_ID))
        if (request.method, path) == ("GET", "/api/backups"):
            return JSONResponse(BACKUPS)
        if (request.method, path) == ("GET", "/api/tasks"):
            return JSONResponse([TASK])
        if request.method == "GET" and path.startswith("/api/objects/dashboard/"):
            found = self.named.get(int(path.rsplit("/", 1)[1]))
            if found is not None:
                return JSONResponse({"name": found})
        if request.method == "POST":  # a write: it would start a task
            return JSONResponse({**TASK, "status": "queued"}, status_code=202)
        return JSONResponse({"detail": "not found"}, status_code=404)


@pytest.fixture
def tool_server() -> Iterator[tuple[ToolServer, str]]:
    server = ToolServer()
    with LiveServer(server.app) as live:
        yield server, live.url


# The object a page shows, as its context names it.
PAGE_OBJECTS: dict[str, dict[str, Any]] = {
    "dashboard": {
        "objectType": "dashboard",
        "objectId": "10",
        "objectName": "Отчёт по энергопотреблению",
        "route": "/dashboards/10",
    },
    "dataset": {
        "objectType": "dataset",
        "objectId": "3",
        "objectName": "sales_orders",
        "route": "/datasets/3",
    },
    "migration": {"objectType": "migration", "route": "/migrations"},
}


def page_context(object_type: str | None) -> dict[str, Any]:
    context: dict[str, Any] = {"contextVersion": 1, "envId": "ss-dev", "route": "/agent"}
    return context | PAGE_OBJECTS.get(object_type or "", {})


async def _audited_kinds(agent: Any) -> list[str | None]:
    """The kind each tool call was audited as ("read" or "write"), in order."""
    async with agent.app.state.services.sessions() as session:
        entries = await session.scalars(select(AuditEntry).where(AuditEntry.action == "tool_call"))
        return [entry.detail.get("kind") for entry in entries]


async def _say(
    make_agent: Any, url: str, text: str, object_type: str | None, role: Role
) -> tuple[list[dict[str, Any]], list[str | None]]:
    """The events of ``text`` said on the page, and how the tool calls were audited."""
    planner = OfflinePlanner(environment_ids=("ss-dev", "staging", "prod"))
    async with make_agent(planner, tools_base_url=url) as agent:
        cid = await agent.conversation(role)
        sent = await agent.send(cid, text, page_context(object_type), role)
        assert sent.status_code in (200, 201, 202), sent.text
        events = await read_events(agent.client, cid, agent.auth(role))
        return events, await _audited_kinds(agent)


D, M, E, A = "dashboard", "migration", Role.engineer, Role.admin

# (what a person asks, the page, their role, the tool that answers, arguments it must carry)
QUESTIONS = [
    # The phrasings of issue 20 §2 and the brief.
    ("что изменится, если выкатить в prod?", D, E, "deploy_dashboard", {"dry_run": True}),
    ("покажи историю выкаток в prod", None, E, "list_tasks", {"env_id": "prod"}),
    (
        "предпросмотр миграции дашборда 6 в prod",
        D,
        E,
        "execute_migration",
        {"dry_run": True, "dashboard_ids": [6], "target_env_id": "prod"},
    ),
    ("покажи бэкапы", None, A, "list_backups", {}),
    ("список резервных копий", None, A, "list_backups", {}),
    ("какие бэкапы есть у staging", None, A, "list_backups", {"env_id": "staging"}),
    # As BI engineers say them.
    (
        "what would change if I deploy this to staging?",
        D,
        E,
        "deploy_dashboard",
        {"dry_run": True, "target_env_id": "staging"},
    ),
    ("а что поменяется в prod после выкатки?", D, E, "deploy_dashboard", {"dry_run": True}),
    (
        "preview the migration of dashboard 6 to prod",
        D,
        E,
        "execute_migration",
        {"dry_run": True, "dashboard_ids": [6]},
    ),
    (
        f"что будет, если откатить выкатку {TASK_ID} в prod?",
        M,
        E,
        "rollback_deploy",
        {"dry_run": True, "task_id": TASK_ID, "env_id": "prod"},
    ),
    (
        f"что изменится, если восстановить {BACKUP_ID} в staging?",
        M,
        A,
        "restore_backup",
        {"dry_run": True, "backup_id": BACKUP_ID, "target_env_id": "staging"},
    ),
    ("show me the backups of prod", None, A, "list_backups", {"env_id": "prod"}),
    ("какие выкатки были вчера?", M, E, "list_tasks", {}),
    ("do we have a backup from yesterday?", None, A, "list_backups", {}),
]


@pytest.mark.parametrize(("text", "page", "role", "tool", "args"), QUESTIONS)
async def test_a_question_is_answered_read_only_with_no_card_and_no_task(
    make_agent: Any,
    tool_server: tuple[ToolServer, str],
    text: str,
    page: str | None,
    role: Role,
    tool: str,
    args: dict[str, Any],
) -> None:
    server, url = tool_server
    events, audited = await _say(make_agent, url, text, page, role)
    assert "confirm_required" not in types(events), events
    assert types(events)[-1] == "done", events
    assert audited == ["read"]
    called = [event for event in events if event["type"] == "tool_call"]
    assert [event["tool"] for event in called] == [tool], events
    assert args.items() <= called[0]["args"].items(), called[0]["args"]
    results = [event for event in events if event["type"] == "tool_result"]
    assert [(r["outcome"], r["task_id"]) for r in results] == [("ok", None)], results
    assert server.writes == [], "a question sent a write"
    answer = next(event["text"] for event in reversed(events) if event["type"] == "message")
    assert CYRILLIC.search(answer), answer
    assert tool not in answer, answer  # the title, never the tool id
    if args.get("dry_run"):
        # The plan in the card's words, and that nothing was changed.
        assert "1 дашборд будет изменён" in answer, answer
        assert tool_texts.DRY_RUN_NOTHING_CHANGED in answer, answer
        assert tool_texts.DRY_RUN_TITLE.format(tool=CATALOGUE[tool].title) in answer, answer


# The command each question above has: it still gets its card, and nothing runs before it.
COMMANDS = [
    ("выкати в prod", D, E, "deploy_dashboard"),
    ("разверни этот дашборд в staging", D, E, "deploy_dashboard"),
    ("выкати в prod?", D, E, "deploy_dashboard"),
    ("можешь выкатить в prod?", D, E, "deploy_dashboard"),
    ("deploy this dashboard to prod", D, E, "deploy_dashboard"),
    ("мигрируй дашборд 6 в prod", D, E, "execute_migration"),
    ("сделай бэкап", None, A, "run_backup"),
    (f"откати выкатку {TASK_ID} в prod", M, E, "rollback_deploy"),
    (f"восстанови {BACKUP_ID} в staging", None, A, "restore_backup"),
]


@pytest.mark.parametrize(("text", "page", "role", "tool"), COMMANDS)
async def test_a_command_still_gets_its_card(
    make_agent: Any,
    tool_server: tuple[ToolServer, str],
    text: str,
    page: str | None,
    role: Role,
    tool: str,
) -> None:
    server, url = tool_server
    events, _ = await _say(make_agent, url, text, page, role)
    card = events[-1]
    assert card["type"] == "confirm_required", events
    assert card["tool"] == tool
    assert "dry_run" not in card["args"]
    assert card["decision"]["kind"] == "write"
    assert server.writes == [], "a write ran before its card was approved"


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("что изменится, если выкатить в prod?", "plan"),
        ("chto izmenitsya v prode", "plan"),
        ("dry-run the migration", "plan"),
        ("покажи бэкапы", "read"),
        ("pokazhi bekapy", "read"),
        ("list backups", "read"),
        ("дашборд опубликован?", "read"),
        ("что изменилось с последнего коммита", "read"),  # the past: a read, not a plan
        ("выкати в prod", None),
        ("выкати в prod?", None),  # an imperative is a command, «?» or not
        ("можешь выкатить в prod?", None),  # politeness
        ("please deploy to staging", None),
        ("сделай бэкап", None),
    ],
)
def test_questions_are_told_from_commands(text: str, asked: str | None) -> None:
    assert asks(text) == asked


async def test_approving_a_command_after_its_dry_run_sends_the_write_once(
    make_agent: Any, tool_server: tuple[ToolServer, str]
) -> None:
    """The question first (its plan, nothing sent), then the command: one card, one write."""
    server, url = tool_server
    planner = OfflinePlanner(environment_ids=("ss-dev", "staging", "prod"))
    async with make_agent(planner, tools_base_url=url) as agent:
        cid = await agent.conversation(Role.engineer)
        await agent.send(
            cid, "что изменится, если выкатить в prod?", page_context(D), Role.engineer
        )
        asked = await read_events(agent.client, cid, agent.auth(Role.engineer))
        assert "confirm_required" not in types(asked)
        assert server.writes == []
        await agent.send(cid, "выкати в prod", page_context(D), Role.engineer)
        later = await read_events(
            agent.client, cid, agent.auth(Role.engineer), last_event_id=asked[-1]["_id"]
        )
        card = later[-1]
        assert card["type"] == "confirm_required", later
        # The dry run started nothing to follow: the dashboard page's set stays the spec's.
        assert all("get_task_status" not in offered for offered in agent.model.offered)
        await agent.decide(cid, card["confirmation_id"], "approve", Role.engineer)
        done = await read_events(
            agent.client, cid, agent.auth(Role.engineer), last_event_id=card["_id"]
        )
    assert server.writes == [("POST", "/api/deploy")], done
    started = [e["task_id"] for e in done if e["type"] == "tool_result"]
    assert started == [TASK["id"]], done


async def test_an_analyst_asking_what_a_deploy_would_change_gets_no_plan(
    make_agent: Any, tool_server: tuple[ToolServer, str]
) -> None:
    """A dry run is a read, but of a tool the role may not use: it is never sent."""
    server, url = tool_server
    events, _ = await _say(make_agent, url, "что изменится, если выкатить в prod?", D, Role.analyst)
    assert "confirm_required" not in types(events)
    assert not [path for _, path in server.requests if path.startswith("/api/deploy")]


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("deploy_dashboard", {"target_env_id": "prod"}),
        ("execute_migration", {"target_env_id": "prod"}),
        ("rollback_deploy", {"task_id": TASK_ID, "env_id": "prod"}),
        ("restore_backup", {"backup_id": BACKUP_ID, "target_env_id": "prod"}),
    ],
)
def test_a_dry_run_is_cleared_as_a_read_after_the_role_check(
    name: str, args: dict[str, Any]
) -> None:
    page = {"envId": "ss-dev"}
    planned = {**args, "dry_run": True}
    cleared = check_on_page(Role.admin, page, name, planned)
    assert isinstance(cleared, Cleared), cleared
    assert (cleared.decision.kind, cleared.decision.needs_confirmation) == ("read", False)
    assert isinstance(check_on_page(Role.admin, page, name, args), NeedsConfirmation)
    denied = check_on_page(Role.analyst, page, name, planned)
    assert isinstance(denied, Refused)
    assert denied.required_role is CATALOGUE[name].min_role
    # Every read asks with SSTOOLS_HITL=all: so does a dry run.
    asked = check_on_page(Role.admin, page, name, planned, confirm_reads=True)
    assert isinstance(asked, NeedsConfirmation)
    # A model reads what the flag does; a preview exists for the executor to send instead.
    field = CATALOGUE[name].schema()["function"]["parameters"]["properties"]["dry_run"]
    assert field["description"] == "true: only the plan; nothing is written"
    assert CATALOGUE[name].preview is not None


async def test_a_question_whose_plan_cannot_be_made_says_why_and_that_nothing_changed(
    make_agent: Any, tool_server: tuple[ToolServer, str]
) -> None:
    server, url = tool_server
    server.down.add("staging")
    events, audited = await _say(
        make_agent, url, "что изменится, если выкатить в staging?", D, Role.engineer
    )
    assert "confirm_required" not in types(events), events
    results = [event for event in events if event["type"] == "tool_result"]
    assert [(r["outcome"], r["task_id"]) for r in results] == [("error", None)], results
    assert results[0]["message"].startswith("«Выкатка дашборда (только план)»"), results
    assert "staging не отвечает" in results[0]["message"]
    answer = next(event["text"] for event in reversed(events) if event["type"] == "message")
    assert tool_texts.DRY_RUN_NO_PLAN in answer, answer
    assert tool_texts.DRY_RUN_HOW_TO_APPLY not in answer, answer
    assert server.writes == []
    assert audited == ["read"]
