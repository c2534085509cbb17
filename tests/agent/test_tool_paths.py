"""Issue 7, item 8: an argument that goes into a URL path stays one segment of the intended route.

A prompt-injected model can put anything into a tool's arguments. The server below is real
uvicorn (it percent-decodes the path, as sstools' own server does) with the route templates the
tools target plus decoys; every request it gets is recorded with the template that matched.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from sqlalchemy import select
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sstools.agent.context import ObjectType
from sstools.agent.executor import ToolExecutor, ToolResult
from sstools.agent.tools import CATALOGUE, CallScope, ToolArgs, ToolRequest
from sstools.storage.db import create_engine, migrate, session_factory
from sstools.storage.models import AuditEntry
from sstools.testing import LiveServer

ENV = "ss-dev"
DATABASE = "/api/databases/{database_id}"
DASHBOARD = "/api/dashboards/{dashboard_id}"
TEMPLATES = {
    ("GET", "/api/databases"),
    ("GET", f"{DATABASE}/schemas"),
    ("GET", f"{DATABASE}/schemas/{{schema}}/tables"),
    ("GET", f"{DATABASE}/schemas/{{schema}}/tables/{{table}}/columns"),
    ("GET", "/api/tasks"),
    ("GET", "/api/tasks/{task_id}"),
    ("POST", "/api/tasks/{task_id}/cancel"),
    ("GET", f"{DASHBOARD}/health"),
    ("POST", f"{DASHBOARD}/validate"),
    ("POST", f"{DASHBOARD}/document"),
    ("POST", "/api/deploy"),
    ("POST", "/api/deploy/plan"),
    ("POST", "/api/deploy/{task_id}/rollback"),
    ("POST", "/api/deploy/{task_id}/rollback/plan"),
    # Decoys a traversal would aim at.
    ("GET", "/api/users"),
    ("GET", "/api/auth/me"),
    ("GET", "/api/environments"),
    ("POST", "/api/sql/execute"),
    ("GET", "/api/agent/conversations/{conversation_id}"),
}
# The known payloads of the report and their cousins: dot segments, encoded slashes, a query or a
# fragment smuggled into a segment, backslashes.
PAYLOADS = [
    "../../../api/users",
    "../../../../api/users",
    "../../../../api/users#",  # reaches GET /api/users exactly, the suffix cut off
    "..%2F..%2F..%2Fapi%2Fusers",
    "..%2F..",
    "%2e%2e",
    "..",
    ".",
    "",
    "a/b",
    "/",
    "x?env_id=prod",
    "x#fragment",
    "..\\..\\api\\users",
    "a%2Fb",
    "public",
    "отчёт 2024",
]


@dataclass(frozen=True)
class Hit:
    method: str
    template: str
    params: dict[str, str]
    query: list[tuple[str, str]]


class RouteServer:
    """Records which template each request matched; anything else lands in ``unrouted``."""

    def __init__(self) -> None:
        self.hits: list[Hit] = []
        routes = [
            Route(template, self._recorder(template), methods=[method])
            for method, template in sorted(TEMPLATES)
        ]
        everything = ["GET", "POST", "PUT", "DELETE"]
        routes.append(Route("/{rest:path}", self._recorder("unrouted"), methods=everything))
        self.app = Starlette(routes=routes)

    def _recorder(self, template: str) -> Any:
        async def record(request: Request) -> Response:
            self.hits.append(
                Hit(
                    request.method,
                    template,
                    dict(request.path_params),
                    sorted(request.query_params.multi_items()),
                )
            )
            return JSONResponse({"ok": True})

        return record


@pytest.fixture(scope="module")
def route_server() -> Iterator[tuple[RouteServer, str]]:
    server = RouteServer()
    with LiveServer(server.app) as live:
        yield server, live.url


@dataclass
class Rig:
    server: RouteServer
    executor: ToolExecutor
    audit_url: str

    async def audit(self) -> list[AuditEntry]:
        engine = create_engine(self.audit_url)
        async with session_factory(engine)() as session:
            entries = list(await session.scalars(select(AuditEntry).order_by(AuditEntry.id)))
        await engine.dispose()
        return entries


@pytest.fixture
async def rig(route_server: tuple[RouteServer, str], tmp_path: Path) -> AsyncIterator[Rig]:
    url = f"sqlite:///{tmp_path / 'audit.db'}"
    migrate(url)
    engine = create_engine(url)
    executor = ToolExecutor(
        base_url=route_server[1], timeout_s=5, retry_wait_s=0, sessions=session_factory(engine)
    )
    route_server[0].hits.clear()
    yield Rig(route_server[0], executor, url)
    await executor.aclose()
    await engine.dispose()


def scope(object_id: int = 10) -> CallScope:
    return CallScope(env_id=ENV, object_type=ObjectType.dashboard, object_id=object_id)


def intended(tool: str, args: Any, call_scope: CallScope, *, preview: bool = False) -> Hit:
    """The one request the call may make: its route template and the decoded values in it."""
    env_query = [("env_id", ENV)]
    if tool == "superset_explore_database":
        if args.database_id is None:
            return Hit("GET", "/api/databases", {}, env_query)
        params = {"database_id": str(args.database_id)}
        if args.schema_name is None:
            return Hit("GET", f"{DATABASE}/schemas", params, env_query)
        params["schema"] = args.schema_name
        if args.table is None:
            return Hit("GET", f"{DATABASE}/schemas/{{schema}}/tables", params, env_query)
        params["table"] = args.table
        return Hit(
            "GET", f"{DATABASE}/schemas/{{schema}}/tables/{{table}}/columns", params, env_query
        )
    if tool == "get_task_status":
        return Hit("GET", "/api/tasks/{task_id}", {"task_id": args.task_id}, [])
    if tool == "rollback_deploy":
        route = "/api/deploy/{task_id}/rollback" + ("/plan" if preview else "")
        return Hit("POST", route, {"task_id": args.task_id}, [])
    if tool == "deploy_dashboard":
        # The dashboard goes in the body: the route has no segment a value could bend.
        return Hit("POST", "/api/deploy/plan" if preview else "/api/deploy", {}, [])
    dashboard = {"dashboard_id": str(args.dashboard_id or call_scope.object_id)}
    suffix, method = {
        "get_health_summary": ("health", "GET"),
        "run_llm_validation": ("validate", "POST"),
        "run_llm_documentation": ("document", "POST"),
    }[tool]
    return Hit(method, f"{DASHBOARD}/{suffix}", dashboard, env_query)


async def call(rig: Rig, tool: str, raw: dict[str, Any], call_scope: CallScope) -> ToolResult:
    spec = CATALOGUE[tool]
    return await rig.executor.execute(
        spec,
        spec.args_model.model_validate(raw),
        call_scope,
        token="t",
        username="ирина",
    )


async def assert_confined(rig: Rig, tool: str, raw: dict[str, Any], call_scope: CallScope) -> None:
    """Refused at the arguments (naming the field, nothing sent), or exactly the intended route."""
    spec = CATALOGUE[tool]
    rig.server.hits.clear()
    try:
        args = spec.args_model.model_validate(raw)
    except ValidationError as exc:
        refused_fields = {str(error["loc"][0]) for error in exc.errors()}
    else:
        refused_fields = set()
    if refused_fields:
        assert refused_fields <= set(raw)
        assert rig.server.hits == []
        return
    result = await call(rig, tool, raw, call_scope)
    assert rig.server.hits == [intended(tool, args, call_scope)], result
    assert result.outcome.value == "ok"
    if spec.preview is not None:
        rig.server.hits.clear()
        await rig.executor.preview(spec.preview(args, call_scope), "t")
        assert rig.server.hits == [intended(tool, args, call_scope, preview=True)]


names = st.one_of(
    st.sampled_from(PAYLOADS),
    st.text(max_size=300),
    st.text(alphabet=st.sampled_from("./\\%2Fe?#&=a"), max_size=16),
    st.none(),
)
ids = st.one_of(st.integers(), st.none(), st.sampled_from(PAYLOADS))
CALLS = st.one_of(
    st.tuples(
        st.just("superset_explore_database"),
        st.fixed_dictionaries(
            {}, optional={"database_id": ids, "schema_name": names, "table": names}
        ),
    ),
    st.tuples(st.just("get_task_status"), st.fixed_dictionaries({"task_id": names})),
    st.tuples(
        st.just("rollback_deploy"),
        st.fixed_dictionaries({"task_id": names, "env_id": st.just("ss-prod")}),
    ),
    *[
        st.tuples(st.just(tool), st.fixed_dictionaries({}, optional={"dashboard_id": ids}))
        for tool in ("get_health_summary", "run_llm_validation", "run_llm_documentation")
    ],
    st.tuples(
        st.just("deploy_dashboard"),
        st.fixed_dictionaries({"target_env_id": st.just("prod")}, optional={"dashboard_id": ids}),
    ),
)


# 300: building a request is pure; every tool's path arguments get hostile text many times.
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(CALLS, st.integers(min_value=0, max_value=10**18 - 1))
async def test_every_path_argument_reaches_only_its_route(
    rig: Rig, tool_call: tuple[str, dict[str, Any]], context_id: int
) -> None:
    tool, raw = tool_call
    await assert_confined(rig, tool, raw, scope(context_id))


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize(
    ("tool", "field", "base"),
    [
        ("superset_explore_database", "schema_name", {"database_id": 1}),
        ("superset_explore_database", "table", {"database_id": 1, "schema_name": "public"}),
        ("get_task_status", "task_id", {}),
        ("rollback_deploy", "task_id", {"env_id": "ss-prod"}),
    ],
)
async def test_known_traversal_payloads_are_refused_or_encoded(
    rig: Rig, tool: str, field: str, base: dict[str, Any], payload: str
) -> None:
    await assert_confined(rig, tool, {**base, field: payload}, scope())


class _TaskIdOnly(ToolArgs):
    task_id: str


def _careless_builder(args: Any, call_scope: CallScope) -> ToolRequest:
    return ToolRequest(method="GET", path=f"/api/tasks/{args.task_id}")


@pytest.mark.parametrize(
    "task_id",
    [
        "../users",
        "../../api/users",
        "%2e%2e",
        "..%2Fusers",
        "a%2Fb",
        "x?env_id=prod",
        "a/../../users",
    ],
)
async def test_the_executor_refuses_a_route_its_builder_let_change(rig: Rig, task_id: str) -> None:
    # A builder that forgets to encode (a future tool, a refactoring slip) must not reach another
    # endpoint: the executor, the one place that sends, checks the route it was given.
    careless = replace(
        CATALOGUE["get_task_status"], args_model=_TaskIdOnly, build=_careless_builder
    )
    result = await rig.executor.execute(
        careless,
        _TaskIdOnly(task_id=task_id),
        scope(),
        token="t",
        username="ирина",
    )
    assert rig.server.hits == []
    assert result.outcome.value == "refused"
    assert "«Статус задачи»" in (result.message or "")  # the title, never the tool id
    [entry] = await rig.audit()
    assert (entry.action, entry.outcome, entry.env_id) == ("tool_call", "refused", ENV)
    assert entry.detail["attempts"] == 0
    assert entry.detail["tool"] == "get_task_status"


async def test_an_encoded_payload_is_audited_as_the_tool_and_environment_it_ran_in(
    rig: Rig,
) -> None:
    await call(
        rig, "superset_explore_database", {"database_id": 1, "schema_name": "..%2F.."}, scope()
    )
    assert rig.server.hits == [
        Hit(
            "GET",
            f"{DATABASE}/schemas/{{schema}}/tables",
            {"database_id": "1", "schema": "..%2F.."},
            [("env_id", ENV)],
        )
    ]
    [entry] = await rig.audit()
    assert entry.detail["tool"] == "superset_explore_database"
    assert entry.env_id == ENV
    assert entry.outcome == "ok"


async def test_a_deploy_is_audited_in_the_environment_it_changes(rig: Rig) -> None:
    await call(rig, "deploy_dashboard", {"target_env_id": "prod"}, scope())
    [entry] = await rig.audit()
    assert (entry.detail["tool"], entry.env_id) == ("deploy_dashboard", "prod")
