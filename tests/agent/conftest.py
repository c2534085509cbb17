"""Agent fixtures: an app with a scripted model, served live; conversations per user.

Shared by the agent's test modules (none imports another's): the tool sets a page offers, three
environments, the invocation check as a page sees it, and a server that fails on purpose.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage
from pydantic import SecretStr
from sqlalchemy import select
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sstools.agent.context import ObjectType, UIContext
from sstools.agent.executor import ToolExecutor, ToolResult
from sstools.agent.invocation import ToolCall, Verdict, check_call
from sstools.agent.selection import select_tools
from sstools.agent.tools import CATALOGUE, CallScope
from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.environments import Environment, EnvironmentRegistry, Stage
from sstools.storage.models import Conversation
from sstools.tasks import TooManyTasks
from sstools.testing import LiveServer, Script, ScriptedChatModel
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.agent.deploy_server import deploys  # noqa: F401  (a fixture)
from tests.conftest import AuthHeaders
from tests.rig import page_context, settings_for_places
from tests.support import done_or_card, read_events


@pytest.fixture
def fake_superset() -> FakeSuperset:
    return FakeSuperset(
        dashboards=[
            {"id": i, "dashboard_title": f"Дашборд {i}", "published": True} for i in range(1, 8)
        ]
    )


@pytest.fixture
async def settings(tmp_path: Path, fake_superset: FakeSuperset) -> Settings:
    places = [
        ("ss-dev", "Dev", "dev", "http://superset.test"),
        ("staging", "Staging", "staging", "http://superset.test"),
        ("prod", "Prod", "prod", "http://superset.test"),
    ]
    # One approval for prod here: these tests are about one person's card (the second person's
    # part has its own tests, test_second_approval.py, which ask for two).
    return await settings_for_places(
        tmp_path, fake_superset, places, tool_timeout_s=5.0, tool_retry_wait_s=1.0, approvals_prod=1
    )


@dataclass
class Agent:
    """A live app with a scripted model, and helpers to talk to it as a given role."""

    model: ScriptedChatModel
    client: httpx.AsyncClient
    auth: AuthHeaders
    url: str
    app: Any

    async def conversation(self, role: Role = Role.engineer) -> str:
        response = await self.client.post("/api/agent/conversations", headers=self.auth(role))
        assert response.status_code == 201
        conversation_id: str = response.json()["id"]
        return conversation_id

    async def send(
        self,
        conversation_id: str,
        text: str,
        uicontext: dict[str, Any] | None,
        role: Role = Role.engineer,
    ) -> httpx.Response:
        return await self.client.post(
            f"/api/agent/conversations/{conversation_id}/messages",
            json={"text": text, "uicontext": uicontext},
            headers=self.auth(role),
        )

    async def ask(
        self, text: str, uicontext: dict[str, Any] | None, role: Role = Role.engineer
    ) -> tuple[str, list[dict[str, Any]]]:
        """A new conversation of ``role`` with ``text`` sent in it from ``uicontext``: its id, and
        its events up to ``done`` or a card."""
        conversation_id = await self.conversation(role)
        await self.send(conversation_id, text, uicontext, role)
        return conversation_id, await read_events(self.client, conversation_id, self.auth(role))

    async def events_after(
        self,
        conversation_id: str,
        event: dict[str, Any],
        role: Role = Role.engineer,
        *,
        until: Callable[[dict[str, Any]], bool] = done_or_card,
    ) -> list[dict[str, Any]]:
        """The events of the conversation after ``event`` (one read before, with its ``_id``),
        up to ``done`` or a card (or to ``until``), as ``role`` reads them."""
        return await read_events(
            self.client, conversation_id, self.auth(role), last_event_id=event["_id"], until=until
        )

    async def decide(
        self,
        conversation_id: str,
        confirmation_id: str,
        decision: str,
        role: Role = Role.engineer,
        reason: str | None = None,
    ) -> httpx.Response:
        body = {"decision": decision} | ({"reason": reason} if reason is not None else {})
        return await self.client.post(
            f"/api/agent/conversations/{conversation_id}/confirmations/{confirmation_id}",
            json=body,
            headers=self.auth(role),
        )

    async def idle(self, conversation_id: str, timeout_s: float = 10.0) -> None:
        """Until no run holds the conversation: a run's last event (``done``) is written before
        it lets the conversation go, so a message sent on reading it may still find it busy."""
        deadline = asyncio.get_running_loop().time() + timeout_s
        async with self.app.state.services.sessions() as session:
            while await session.scalar(
                select(Conversation.active_run_id).where(Conversation.id == conversation_id)
            ):
                assert asyncio.get_running_loop().time() < deadline, "the run never let go"
                await asyncio.sleep(0.05)
                session.expire_all()

    async def edit(
        self, conversation_id: str, card: dict[str, Any], args: dict[str, Any]
    ) -> httpx.Response:
        """The engineer's edit of ``card`` (a ``confirm_required`` event): ``args`` changed."""
        return await self.client.post(
            f"/api/agent/conversations/{conversation_id}/confirmations/{card['confirmation_id']}",
            json={"decision": "edit", "args": args},
            headers=self.auth(Role.engineer),
        )


def dashboard_context(object_id: str = "10", env_id: str = "ss-dev") -> dict[str, Any]:
    return page_context("dashboard", object_id, env_id, "Отчёт по энергопотреблению")


def dataset_context(object_id: str = "15", env_id: str = "staging") -> dict[str, Any]:
    return page_context("dataset", object_id, env_id, "energy_consumption")


AgentFactory = Callable[[Script], Any]


@pytest.fixture
def make_agent(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> Callable[..., Any]:
    """``async with make_agent(script) as agent``: a live app answering with ``script``."""
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def factory(script: Script, **overrides: Any) -> AsyncIterator[Agent]:
        model = ScriptedChatModel(script=script)
        app_settings = settings.model_copy(update=overrides)
        app = create_app(
            app_settings, superset_transport=RoutingTransport(fake_superset), chat_model=model
        )
        with LiveServer(app) as server:
            async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
                yield Agent(model=model, client=client, auth=auth, url=server.url, app=app)

    return factory


def ai(text: str) -> AIMessage:
    return AIMessage(content=text)


# What the tool selection offers an engineer on a dashboard page and on a dataset page.
# Story 1, acceptance 3: the spec's dashboard set.
SPEC_DASHBOARD_SET = {
    "search_dashboards",
    "get_health_summary",
    "deploy_dashboard",
    "run_llm_validation",
    "run_llm_documentation",
    "execute_migration",
    "create_branch",
    "commit_changes",
    "show_capabilities",
}
# Issue 33 §3: what the dashboard's page shows, readable beside it (each scoped to it).
DASHBOARD_PAGE_READS = {
    "list_tasks",
    "get_dashboard_timeline",
    "get_git_status",
    "get_drift",
    "rollback_deploy",
}
# Issue 37 §2: the numbers its charts show, with the page's filters.
DASHBOARD_DATA = {"get_dashboard_data"}
# Issue 36, round 6: who can open it (the audit reads the page's dashboard).
DASHBOARD_AUDIT = {"superset_audit_permissions"}
DASHBOARD_SET = SPEC_DASHBOARD_SET | DASHBOARD_PAGE_READS | DASHBOARD_DATA | DASHBOARD_AUDIT
# Story 1, acceptance 4: exactly these on a dataset's page.
DATASET_SET = {
    "superset_explore_database",
    "superset_format_sql",
    "superset_audit_permissions",
    "superset_execute_sql",
    "superset_create_dataset",
    "search_dashboards",
    "get_task_status",
    "list_environments",
    "show_capabilities",
}

# ss-dev, staging and prod, as the guardrails and the invocation check see them.
ENVS = EnvironmentRegistry(
    [
        Environment(
            id=env_id,
            name=env_id.upper(),
            stage=stage,
            url="http://x",
            username="u",
            password=SecretStr("p"),
        )
        for env_id, stage in (
            ("ss-dev", Stage.dev),
            ("staging", Stage.staging),
            ("prod", Stage.prod),
        )
    ]
)

DASHBOARD_PAGE = {"objectType": "dashboard", "objectId": "10", "envId": "ss-dev"}


def check_on_page(
    role: Role,
    page: dict[str, Any],
    name: str,
    args: dict[str, Any] | None = None,
    *,
    confirm_reads: bool = False,
) -> Verdict:
    """``check_call`` on a call by ``role`` from ``page`` (UIContext fields), offline."""
    context = (
        UIContext.model_validate({"contextVersion": 1, "route": "/", **page}) if page else None
    )
    scope = CallScope(
        env_id=page.get("envId"),
        object_type=context.object_type if context else None,
        object_id=int(page["objectId"]) if "objectId" in page else None,
    )
    call: ToolCall = {"id": "call_1", "name": name, "args": args or {}}
    return check_call(
        call,
        role,
        select_tools(role, context),
        scope,
        ENVS,
        confirm_reads=confirm_reads,
    )


INVALID_DETAIL = [
    {"type": "string_too_long", "loc": ["body", "sql"], "msg": "String is too long"},
    {"type": "missing", "loc": ["body", "database_id"], "msg": "Field required"},
    {"type": "int_parsing", "loc": ["body", "rows", 2, "id"], "msg": "Not an integer"},
    {"type": "json_invalid", "loc": ["body"], "msg": "JSON decode error"},
]


class FaultServer:
    """Answers per path: a scripted sequence of statuses, a hang, or a big body. Counts calls."""

    def __init__(self) -> None:
        self.plan: dict[str, list[int | str]] = {}
        self.calls: Counter[str] = Counter()
        self.headers: list[dict[str, str]] = []
        self.app = Starlette(
            routes=[Route("/{path:path}", self.handle, methods=["GET", "POST", "PUT"])]
        )

    async def handle(self, request: Request) -> Response:
        path = "/" + request.path_params["path"]
        self.calls[path] += 1
        self.headers.append(dict(request.headers))
        steps = self.plan.get(path, [200])
        step = steps[min(self.calls[path] - 1, len(steps) - 1)]
        if step == "hang":
            await asyncio.sleep(1.5)  # three times the executor timeout below
        if step == "big":
            items = [{"id": i, "title": f"Дашборд {i}", "published": True} for i in range(400)]
            return JSONResponse({"items": items, "total": 400})
        if step == "capped":  # the task engine's cap on a user's unfinished tasks
            body = {"detail": TooManyTasks(5).args[0]}
            return JSONResponse(body, status_code=429, headers={"Retry-After": "30"})
        if step == "invalid":  # FastAPI's own shape for a request it refuses
            return JSONResponse({"detail": INVALID_DETAIL}, status_code=422)
        status = int(step)
        if status == 403:
            return JSONResponse({"detail": "no", "required_role": "engineer"}, status_code=403)
        return JSONResponse({"status": status, "path": path}, status_code=status)


@pytest.fixture
def fault() -> Iterator[tuple[FaultServer, str]]:
    """A :class:`FaultServer`, served live: (it, its URL)."""
    server = FaultServer()
    with LiveServer(server.app) as live:
        yield server, live.url


async def run_tool(executor: ToolExecutor, tool: str, args: dict[str, object]) -> ToolResult:
    """``tool`` run by ``executor`` with ``args``, asked from dashboard 10's page on ss-dev by
    «ирина» (token ``t``)."""
    spec = CATALOGUE[tool]
    scope = CallScope(env_id="ss-dev", object_type=ObjectType.dashboard, object_id=10)
    return await executor.execute(
        spec, spec.args_model.model_validate(args), scope, token="t", username="ирина"
    )


# A deploy plan as POST /api/deploy/plan answers it: one dashboard changed, applicable.
DEPLOY_PLAN = {
    "source": {"env_id": "ss-dev"},
    "target_env_id": "prod",
    "target_stage": "prod",
    "dashboards": [{"kind": "dashboard", "uuid": "u1", "name": "Отчёт", "action": "update"}],
    "objects": [
        {"kind": "dashboard", "uuid": "u1", "name": "Отчёт", "action": "update", "fields": ["css"]}
    ],
    "dashboards_changed": 1,
    "applicable": True,
    "summary": "1 из 1 дашборда изменится в prod",
    "digest": "d" * 64,
}


@pytest.fixture
def plan_server() -> Iterator[str]:
    """Where the agent's tools go when a test needs a plan the fake Superset cannot make."""

    async def plan(request: Request) -> Response:
        return JSONResponse(DEPLOY_PLAN)

    async def named(request: Request) -> Response:  # the page's object, as the turn asks it
        object_id = int(request.path_params["object_id"])
        return JSONResponse({"object_id": object_id, "name": f"Дашборд {object_id}"})

    app = Starlette(
        routes=[
            Route("/api/deploy/plan", plan, methods=["POST"]),
            Route("/api/objects/dashboard/{object_id}", named),
        ]
    )
    with LiveServer(app) as live:
        yield live.url
