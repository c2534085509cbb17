"""Dashboard tools: search, health, deploy, LLM validation and documentation."""

from __future__ import annotations

from pydantic import Field

from sstools.agent.context import ObjectType
from sstools.agent.tools.paths import ObjectId, api_path
from sstools.agent.tools.spec import (
    CallScope,
    ToolArgs,
    ToolKind,
    ToolRequest,
    assistant_tool,
    env_param,
    object_id,
)
from sstools.auth.roles import Role

D, S, M = ObjectType.dashboard, ObjectType.dataset, ObjectType.migration
DASHBOARDS = "/api/dashboards"


class SearchDashboardsArgs(ToolArgs):
    query: str | None = Field(default=None, max_length=200, description="Words in the title")
    page: int = Field(default=0, ge=0, le=1000)


@assistant_tool(
    title="Поиск дашбордов",
    kind=ToolKind.read,
    needs_env=True,
    affinity=(D, S, M),
    keywords=("найти", "найди", "поиск", "список", "search", "find", "list"),
)
def search_dashboards(args: SearchDashboardsArgs, scope: CallScope) -> ToolRequest:
    """Search the current environment's dashboards by words in their title (any case)."""
    params = env_param(scope) | {"page": args.page}
    if args.query:
        params["q"] = args.query
    return ToolRequest(method="GET", path="/api/dashboards", params=params)


class DashboardArgs(ToolArgs):
    dashboard_id: ObjectId | None = Field(
        default=None, description="Dashboard id; defaults to the dashboard in context"
    )


@assistant_tool(
    title="Сводка состояния дашборда",
    kind=ToolKind.read,
    needs_env=True,
    affinity=(D,),
    keywords=(
        "статус",
        "состояние",
        "здоровье",
        "расскажи",
        "проблемы",
        "health",
        "status",
        "about",
    ),
)
def get_health_summary(args: DashboardArgs, scope: CallScope) -> ToolRequest:
    """Health of a dashboard: last change, owners, published, charts whose data resolves,
    git status and last validation."""
    dashboard = object_id(args.dashboard_id, scope, D, "dashboard_id")
    return ToolRequest(
        method="GET", path=api_path(DASHBOARDS, dashboard, "health"), params=env_param(scope)
    )


class DeployArgs(ToolArgs):
    dashboard_id: ObjectId | None = Field(default=None, description="Defaults to the context")
    target_env_id: str = Field(max_length=64, description="Environment id to deploy to")


def _deploy_target(args: DeployArgs, scope: CallScope) -> str:
    return args.target_env_id


def _deploy_body(args: DeployArgs, scope: CallScope) -> tuple[int, dict[str, str | None]]:
    dashboard = object_id(args.dashboard_id, scope, D, "dashboard_id")
    return dashboard, {"source_env_id": scope.env_id, "target_env_id": args.target_env_id}


def _deploy_preview(args: DeployArgs, scope: CallScope) -> ToolRequest:
    dashboard, body = _deploy_body(args, scope)
    return ToolRequest(
        method="POST", path=api_path(DASHBOARDS, dashboard, "deploy", "preview"), json_body=body
    )


@assistant_tool(
    title="Выкатка дашборда",
    kind=ToolKind.write,
    min_role=Role.engineer,
    needs_env=True,
    affinity=(D,),
    keywords=("выкати", "выкатить", "деплой", "задеплой", "deploy", "опубликуй"),
    preview=_deploy_preview,
    target_env=_deploy_target,
)
def deploy_dashboard(args: DeployArgs, scope: CallScope) -> ToolRequest:
    """Deploy a dashboard from the current environment to another one (e.g. to prod)."""
    dashboard, body = _deploy_body(args, scope)
    return ToolRequest(
        method="POST", path=api_path(DASHBOARDS, dashboard, "deploy"), json_body=body
    )


@assistant_tool(
    title="LLM-проверка дашборда",
    kind=ToolKind.read,
    needs_env=True,
    affinity=(D,),
    keywords=("проверь", "проверка", "валидация", "validate", "ошибки"),
)
def run_llm_validation(args: DashboardArgs, scope: CallScope) -> ToolRequest:
    """Start an LLM review of a dashboard's charts and queries; returns a task id."""
    dashboard = object_id(args.dashboard_id, scope, D, "dashboard_id")
    return ToolRequest(
        method="POST", path=api_path(DASHBOARDS, dashboard, "validate"), params=env_param(scope)
    )


@assistant_tool(
    title="LLM-документация дашборда",
    kind=ToolKind.read,
    needs_env=True,
    affinity=(D,),
    keywords=("документация", "задокументируй", "описание", "document", "docs"),
)
def run_llm_documentation(args: DashboardArgs, scope: CallScope) -> ToolRequest:
    """Start writing documentation for a dashboard with the LLM; returns a task id."""
    dashboard = object_id(args.dashboard_id, scope, D, "dashboard_id")
    return ToolRequest(
        method="POST", path=api_path(DASHBOARDS, dashboard, "document"), params=env_param(scope)
    )
