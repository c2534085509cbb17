"""The agent with no model understands people (issue 22 §2): the right tool and its slots.

Through the real graph and HTTP API, the offline planner answering, one test per failure kind of
the issue: tools that were unreachable in ordinary words, an environment's name outscoring the
verb, reads that became writes, and slots that were missed (environments as people name them, a
branch with ``/``, a SQL text after a formatting verb). Each failed on the keyword planner.
The tools talk to :class:`Server`, which records every request, so a test can tell what ran.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from sstools.agent.offline.planner import OfflinePlanner
from sstools.auth.roles import Role
from sstools.testing import LiveServer
from tests.agent.test_questions_are_read import BACKUP_ID, TASK, ToolServer, page_context
from tests.support import read_events, types

ENVIRONMENTS = ("ss-dev", "staging", "prod")
Planner = OfflinePlanner  # what answers: the planner under test

HEALTH = {
    "env_id": "ss-dev",
    "dashboard_id": 10,
    "title": "Отчёт по энергопотреблению",
    "published": True,
    "changed_on": "2026-11-30T05:10:38Z",
    "owners": [{"id": 1, "name": "Алиса Петрова"}],
    "charts": [
        {
            "id": 1,
            "name": "Потребление по часам",
            "dataset_id": 3,
            "dataset_name": "energy_consumption",
            "dataset_resolves": True,
        },
        # An older server's answer names no dataset: its id is all there is to say.
        {"id": 2, "name": "Пиковая нагрузка", "dataset_id": 4, "dataset_resolves": True},
    ],
    "broken_charts": 0,
    "git_status": "совпадает с веткой main",
    "git": {"status": "clean"},
    "last_validation": "",
    "status": "ok",
    "problems": [],
    "summary": "Отчёт в порядке",
    "url": "http://superset.local/superset/dashboard/10/",
}


DRIFT = {
    "checked_at": "2026-11-30T05:10:38Z",
    "seconds": 1.5,
    "task_id": None,
    "environments": [
        {
            "env_id": "prod",
            "name": "Superset prod",
            "stage": "prod",
            "source_env_id": "staging",
            "reachable": True,
            "error": None,
            "counts": {"in_sync": 9, "edited_here": 1, "behind_source": 1, "missing": 0},
            "dashboards": [
                {"uuid": "u1", "title": "Energy KPIs", "state": "edited_here", "dashboard_id": 5,
                 "in_git": True, "differs_from_git": True},
                {"uuid": "u2", "title": "Sales", "state": "behind_source", "dashboard_id": 6,
                 "differs_from_source": True},
                {"uuid": "u3", "title": "Churn", "state": "in_sync", "dashboard_id": 7},
            ],
        }
    ],
}  # fmt: skip


class Server(ToolServer):
    """The plans and lists of :class:`ToolServer`, and the reads the issue found unreachable."""

    async def handle(self, request: Request) -> Response:
        path = "/" + request.path_params["path"]
        reads: dict[str, Any] = {
            "/api/git/status": {"branch": "main", "changed": [], "clean": True},
            "/api/git/branches": {"current": "main", "branches": ["main", "feature/q4"]},
            "/api/dashboards/10/health": HEALTH,
            f"/api/tasks/{TASK['id']}": TASK,
            "/api/drift": DRIFT,
        }
        if request.method == "GET" and path in reads:
            self.requests.append((request.method, path))
            return JSONResponse(reads[path])
        if (request.method, path) == ("POST", "/api/sql/format"):
            self.requests.append((request.method, path))
            body = await request.json()
            return JSONResponse({"sql": str(body["sql"]).upper()})
        return await super().handle(request)


@pytest.fixture
def server() -> Iterator[tuple[Server, str]]:
    made = Server()
    with LiveServer(made.app) as live:
        yield made, live.url


async def say(
    make_agent: Any, url: str, text: str, page: str | None, role: Role
) -> list[dict[str, Any]]:
    """The events of one request said on a page (None: no object open) with no model."""
    async with make_agent(Planner(environment_ids=ENVIRONMENTS), tools_base_url=url) as agent:
        cid = await agent.conversation(role)
        sent = await agent.send(cid, text, page_context(page), role)
        assert sent.status_code in (200, 201, 202), sent.text
        events: list[dict[str, Any]] = await read_events(agent.client, cid, agent.auth(role))
        return events


def called(events: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The tools called, and each card's tool, with their arguments."""
    return [
        (event["tool"], event["args"])
        for event in events
        if event["type"] in ("tool_call", "confirm_required")
    ]


def answer(events: list[dict[str, Any]]) -> str:
    return str(next(event["text"] for event in reversed(events) if event["type"] == "message"))


D, M, A, E = "dashboard", "migration", Role.admin, Role.engineer


@pytest.mark.parametrize(
    ("text", "page", "role", "tool"),
    [
        ("какие задачи на проде", M, E, "list_tasks"),
        ("статус репозитория", None, E, "get_git_status"),
        ("what's uncommitted?", None, E, "get_git_status"),
        ("что не закоммичено?", None, E, "get_git_status"),
        ("список веток", None, E, "list_branches"),
        ("какие фичеветки есть", None, E, "list_branches"),
    ],
)
async def test_a_tool_once_unreachable_answers_in_ordinary_words(
    make_agent: Any, server: tuple[Server, str], text: str, page: str | None, role: Role, tool: str
) -> None:
    made, url = server
    events = await say(make_agent, url, text, page, role)
    assert [name for name, _ in called(events)] == [tool], events
    assert "confirm_required" not in types(events)
    assert made.writes == []


async def test_a_restore_in_ordinary_words_gets_its_card(
    make_agent: Any, server: tuple[Server, str]
) -> None:
    """«накати бэкап <копия> на прод» was answered with the environment list."""
    made, url = server
    events = await say(make_agent, url, f"накати бэкап {BACKUP_ID} на прод", M, A)
    card = events[-1]
    assert card["type"] == "confirm_required", events
    assert (card["tool"], card["args"]) == (
        "restore_backup",
        {"backup_id": BACKUP_ID, "target_env_id": "prod"},
    )
    assert made.writes == []


@pytest.mark.parametrize(
    "text",
    [
        "забэкапь окружение прод",
        "backup this environment",
    ],
)
async def test_the_verb_decides_not_the_environment_it_names(
    make_agent: Any, server: tuple[Server, str], text: str
) -> None:
    """The environment's name said where; the backup verb lost to it (the environment list)."""
    made, url = server
    events = await say(make_agent, url, text, None, A)
    assert events[-1]["type"] == "confirm_required", events
    assert events[-1]["tool"] == "run_backup"
    assert made.writes == []


@pytest.mark.parametrize(
    ("text", "page", "role", "tool", "args"),
    [
        ("какие есть копии прода?", None, A, "list_backups", {"env_id": "prod"}),
        ("какие выкатки были на стейдже?", M, E, "list_tasks", {"env_id": "staging"}),
        (
            "а при переносе на прод что перезапишется?",
            D,
            E,
            "execute_migration",
            {"dry_run": True, "target_env_id": "prod"},
        ),
        (
            "будут ли конфликты, если выкатить на стейдж?",
            D,
            E,
            "deploy_dashboard",
            {"dry_run": True, "target_env_id": "staging"},
        ),
    ],
)
async def test_a_question_stays_a_read(
    make_agent: Any,
    server: tuple[Server, str],
    text: str,
    page: str | None,
    role: Role,
    tool: str,
    args: dict[str, Any],
) -> None:
    made, url = server
    events = await say(make_agent, url, text, page, role)
    assert "confirm_required" not in types(events), events
    assert [name for name, _ in called(events)] == [tool], events
    assert args.items() <= called(events)[0][1].items()
    assert made.writes == []


@pytest.mark.parametrize(
    ("text", "page", "tool", "args"),
    [
        ("выкати на прод", D, "deploy_dashboard", {"target_env_id": "prod"}),
        ("задеплой на стейджинг", D, "deploy_dashboard", {"target_env_id": "staging"}),
        ("выкати в продакшн", D, "deploy_dashboard", {"target_env_id": "prod"}),
        ("ship this board to stage", D, "deploy_dashboard", {"target_env_id": "staging"}),
        (
            "перенеси дашборды 7 и 8 из стейджа в прод",
            M,
            "execute_migration",
            {"dashboard_ids": [7, 8], "source_env_id": "staging", "target_env_id": "prod"},
        ),
        ("создай ветку feature/energy-css", D, "create_branch", {"name": "feature/energy-css"}),
        ("заведи бранч fix/broken-filters", D, "create_branch", {"name": "fix/broken-filters"}),
        (
            "выкати в прод из ветки feature/q4-css",
            D,
            "deploy_dashboard",
            {"target_env_id": "prod", "git_ref": "feature/q4-css"},
        ),
        # A branch named without «/», after a colon or «as»; the branch it starts from is not it.
        (
            "нужна новая ветка для правок: fix-kpi-tiles",
            D,
            "create_branch",
            {"name": "fix-kpi-tiles"},
        ),
        ("отведи ветку release-2026.12 от main", D, "create_branch", {"name": "release-2026.12"}),
        ("branch off main as energy-redesign", D, "create_branch", {"name": "energy-redesign"}),
        (
            "задеплой в прод из main",
            D,
            "deploy_dashboard",
            {"target_env_id": "prod", "git_ref": "main"},
        ),
        (
            f"выкати в прод из коммита {'0a1b2c3d' * 5}",
            D,
            "deploy_dashboard",
            {"target_env_id": "prod", "git_ref": "0a1b2c3d" * 5},
        ),
        # The environments' everyday names: «боевой», «тестовый стенд», UAT.
        ("выкати дашборд на боевой", D, "deploy_dashboard", {"target_env_id": "prod"}),
        ("ship it to UAT", D, "deploy_dashboard", {"target_env_id": "staging"}),
    ],
)
async def test_slots_are_read_as_people_give_them(
    make_agent: Any,
    server: tuple[Server, str],
    text: str,
    page: str,
    tool: str,
    args: dict[str, Any],
) -> None:
    """«на прод», «стейджинг», a branch with ``/``: asked «уточните: …» although they were said."""
    made, url = server
    events = await say(make_agent, url, text, page, E)
    assert events[-1]["type"] == "confirm_required", events
    assert (events[-1]["tool"], events[-1]["args"]) == (tool, args)
    assert made.writes == []


@pytest.mark.parametrize(
    "text",
    [
        "причеши запрос: select region, sum(amount) from sales group by region",
        "выровняй отступы: select a, b from t join u using (id)",
        "pretty print: select count(*) from orders group by status",
    ],
)
async def test_sql_after_a_formatting_verb_is_formatted_not_executed(
    make_agent: Any, server: tuple[Server, str], text: str
) -> None:
    made, url = server
    events = await say(make_agent, url, text, None, E)
    assert [name for name, _ in called(events)] == ["superset_format_sql"], events
    assert ("POST", "/api/sql/format") in made.requests
    assert not [path for _, path in made.requests if path.startswith("/api/sql/execute")]


@pytest.mark.parametrize(
    ("text", "env"),
    [("сделай бэкап продовского окружения", "prod"), ("забэкапь стейдж", "staging")],
)
async def test_a_backup_asked_for_another_environment_is_of_that_one(
    make_agent: Any, server: tuple[Server, str], text: str, env: str
) -> None:
    """Asked on a dev page, the card backed up dev: the environment said is the one backed up,
    and the card is as loud as its stage."""
    made, url = server
    events = await say(make_agent, url, text, None, A)
    card = events[-1]
    assert card["type"] == "confirm_required", events
    assert (card["tool"], card["args"]) == ("run_backup", {"env_id": env})
    assert card["decision"]["env_id"] == env
    assert made.writes == []


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("как там задача #3F2A9C1B?", "3f2a9c1b"),
        ("задача №20261201 ещё выполняется?", "20261201"),
        ("таска 9f8e7d6c упала?", "9f8e7d6c"),
    ],
)
async def test_a_task_is_found_by_the_digits_people_paste(
    make_agent: Any, server: tuple[Server, str], text: str, task: str
) -> None:
    """A short reference in capitals, or one of digits only after «задача», named no task."""
    made, url = server
    events = await say(make_agent, url, text, None, E)
    assert called(events) == [("get_task_status", {"task_id": task})], events
    assert ("GET", f"/api/tasks/{task}") in made.requests


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("закоммить этот дашборд в git", "Energy KPIs: снимок из ss-dev"),
        ('сохрани в гит с сообщением "KPI tiles reordered"', "KPI tiles reordered"),
    ],
)
async def test_a_commit_says_what_it_holds_not_the_request(
    make_agent: Any,
    server: tuple[Server, str],
    text: str,
    message: str,
) -> None:
    """The git card's message was the request itself («закоммить этот дашборд в git»); the
    default names the dashboard as Superset titles it, not as the page's URL did."""
    made, url = server
    made.named[10] = "Energy KPIs"  # as /api/objects has it from Superset
    events = await say(make_agent, url, text, D, E)
    card = events[-1]
    assert card["type"] == "confirm_required", events
    assert (card["tool"], card["args"]["message"]) == ("commit_changes", message)
    assert made.writes == []


async def test_what_differs_from_git_is_the_drift_with_the_ways_to_reconcile(
    make_agent: Any, server: tuple[Server, str]
) -> None:
    """«что в prod отличается от git?» had no tool: now the drift of prod, each drifted dashboard
    by name and state, and the two reconciliations offered in words (nothing written)."""
    made, url = server
    events = await say(make_agent, url, "что в prod отличается от git?", None, E)
    assert called(events) == [("get_drift", {"env_id": "prod"})], events
    text = answer(events)
    assert "«[Energy KPIs](/dashboards/5?env_id=prod)» — изменён прямо в этом окружении" in text
    assert "«[Sales](/dashboards/6?env_id=prod)» — отстаёт от staging" in text
    assert "Churn" not in text  # in sync: counted, not listed
    assert "закоммить этот дашборд в git" in text
    assert "«выкати этот дашборд в prod из main»" in text  # git holds it: it can be put back
    assert made.writes == []
