"""Dashboard tools: search, health, LLM validation and documentation."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from sstools.agent.context import ObjectType
from sstools.agent.texts import tools as texts
from sstools.agent.tools.call import (
    CallScope,
    ToolRequest,
    env_param,
    named_or_current_env,
    not_in_context,
    object_id,
)
from sstools.agent.tools.paths import EnvId, ObjectId, api_path
from sstools.agent.tools.shaping import commit, head, listed, pick, task_record
from sstools.agent.tools.spec import DetailArgs, ToolArgs, ToolKind, environment_read

D, S, M = ObjectType.dashboard, ObjectType.dataset, ObjectType.migration
DASHBOARDS = "/api/dashboards"


class SearchDashboardsArgs(DetailArgs):
    query: str | None = Field(
        default=None, max_length=200, description="Words in the title; omit to list all"
    )
    page: int = Field(default=0, ge=0, le=1000)
    dashboard_ids: list[ObjectId] | None = Field(
        default=None,
        max_length=50,
        description="These dashboards, by id (found by their titles), instead of words",
    )


def _found(payload: Any, args: SearchDashboardsArgs) -> Any:
    """Each dashboard's id, title, published, last change and link; the total, the next page."""
    out: dict[str, Any] = {"total": payload["total"], "page": payload["page"]}
    if (payload["page"] + 1) * payload["page_size"] < payload["total"]:
        out["note"] = texts.MORE_PAGE.format(page=payload["page"] + 1)
    keys = ("id", "title", "published", "changed_on", "url")  # the url: a link to give a person
    return head(out, "items", (pick(item, *keys) for item in payload["items"]))


@environment_read(affinity=(D, S, M), shape=_found)
def search_dashboards(args: SearchDashboardsArgs, scope: CallScope) -> ToolRequest:
    """Search dashboards.

    By words in their title; the current environment's; any case.
    """
    params = env_param(scope) | {"page": args.page}
    if args.dashboard_ids:
        params["ids"] = ",".join(str(one) for one in args.dashboard_ids)
    elif args.query:
        params["q"] = args.query
    return ToolRequest(method="GET", path="/api/dashboards", params=params)


class DashboardArgs(ToolArgs):
    dashboard_id: ObjectId | None = Field(
        default=None, description="Omit for the dashboard in context"
    )


def _on_dashboard(
    method: str,
    action: str,
    args: DashboardArgs,
    scope: CallScope,
    *,
    env_id: str | None = None,
    extra: dict[str, str | int] | None = None,
) -> ToolRequest:
    """``{method} /api/dashboards/{id}/{action}`` in the environment ``env_id`` (else the page's),
    for the dashboard the arguments name, else the page's."""
    dashboard = object_id(args.dashboard_id, scope, D)
    params = env_param(scope, env_id) | (extra or {})
    return ToolRequest(method=method, path=api_path(DASHBOARDS, dashboard, action), params=params)


class HealthArgs(DashboardArgs, DetailArgs):
    env_id: EnvId | None = Field(
        default=None,
        description="Another environment's dashboard (give its id there); defaults to the current",
    )


def _broken(chart: dict[str, Any]) -> dict[str, Any]:
    # Only the exception is spelled out: a chart is read as working unless marked.
    return {"dataset_resolves": False} if chart.get("dataset_resolves") is False else {}


def _health(payload: Any, args: HealthArgs) -> Any:
    """The verdict and its reasons; charts by id and name, a broken one marked; the last commit."""
    out = pick(payload, "dashboard_id", "title", "env_id", "status", "problems", "url")
    out |= pick(payload, "published", "changed_on", "git_status", "last_validation")
    out["owners"] = [pick(owner, "id", "name") for owner in listed(payload.get("owners"))]
    out["charts"] = [
        pick(chart, "id", "name") | _broken(chart) for chart in listed(payload.get("charts"))
    ]
    last = commit((payload.get("git") or {}).get("last_commit"))
    if last:
        out["git"] = {"last_commit": last}
    return out


@environment_read(affinity=(D,), target_env=named_or_current_env, shape=_health)
def get_health_summary(args: HealthArgs, scope: CallScope) -> ToolRequest:
    """Health of a dashboard.

    Last change, owners, published, git status and last validation. Charts whose data resolves.
    """
    elsewhere = args.env_id is not None and args.env_id != scope.env_id
    if elsewhere and args.dashboard_id is None:  # the page's id is not that environment's
        raise not_in_context(D)
    return _on_dashboard("GET", "health", args, scope, env_id=args.env_id)


@environment_read(affinity=(D,), starts_task=True, shape=task_record)
def run_llm_validation(args: DashboardArgs, scope: CallScope) -> ToolRequest:
    """Start validating a dashboard as a task.

    Follow the task with get_task_status. Missing datasets, chart queries that fail in Superset,
    empty dashboard, datasets without a database, missing owners or descriptions, unpublished in
    prod, plus the model's review when one is configured. Findings have a severity, the object
    and a fix hint.
    """
    return _on_dashboard("POST", "validate", args, scope)


class DocumentationArgs(DashboardArgs):
    commit: bool = Field(
        default=False,
        description="true: also commit it to git (engineers; confirmed first)",
    )


def _documentation_kind(args: DocumentationArgs) -> ToolKind:
    """Writing and storing the document reads; committing it to git is a write (a card)."""
    return ToolKind.write if args.commit else ToolKind.read


def _documentation_target(args: DocumentationArgs, scope: CallScope) -> str | None:
    # A commit changes the git repository, not the environment it reads: the card says git.
    return None if args.commit else scope.env_id


@environment_read(
    affinity=(D,),
    classify=_documentation_kind,
    target_env=_documentation_target,
    starts_task=True,
    shape=task_record,
)
def run_llm_documentation(args: DocumentationArgs, scope: CallScope) -> ToolRequest:
    """Start writing a dashboard's markdown documentation as a task.

    Follow the task with get_task_status. Purpose, charts with datasets and metrics, filters,
    owners, where deployed, git status; by the model or a template, stored for GET
    documentation. With commit=true (engineers, confirmed by the person) also committed to git
    as docs/<uuid>.md.
    """
    return _on_dashboard(
        "POST", "document", args, scope, extra={"commit": "true"} if args.commit else None
    )


TIMELINE_SHOWN = 20


def _timeline(payload: Any, args: DashboardArgs) -> Any:
    """The dashboard's points over time, newest first: what, when, who, where, which deploy."""
    out = pick(payload, "dashboard_id", "title", "env_id")
    keys = ("kind", "when", "who", "label", "env_id", "task_id")
    points = (pick(point, *keys) for point in listed(payload.get("points")))
    return head(out, "points", points, shown=TIMELINE_SHOWN)


@environment_read(affinity=(D,), shape=_timeline)
def get_dashboard_timeline(args: DashboardArgs, scope: CallScope) -> ToolRequest:
    """A dashboard's versions over time, newest first.

    Its commits on git main, the snapshots deploys took before overwriting it (with the deploy's
    task id and who ran it), the backups holding it and its last change in each environment.
    """
    return _on_dashboard("GET", "timeline", args, scope)


DATA_ROWS_SHOWN = 10


class DashboardDataArgs(DetailArgs):
    dashboard_id: ObjectId | None = Field(default=None, description="Omit for the page's dashboard")
    chart_id: ObjectId | None = Field(
        default=None, description="Only this chart; omit for the page's chart, else every chart"
    )
    env_id: EnvId | None = Field(
        default=None, description="Read the same dashboard in this environment; omit: the page's"
    )
    compare_env_id: EnvId | None = Field(
        default=None, description="Compare with the same dashboard there: numbers side by side"
    )


def _data(payload: Any, args: DashboardDataArgs) -> Any:
    """The filters used, then each chart's columns and first rows (or, compared, the numbers
    that differ), and what a chart could not take."""
    if "other_env_id" in payload:
        sides = ("env_id", "other_env_id", "other_dashboard_id", "filters")
        verdicts = ("differing_charts", "dashboards_differ")
        compared = ("name", "differs", "differences", "more_differences", "error")
        charts = [pick(chart, *compared) for chart in listed(payload.get("charts"))]
        return pick(payload, *sides, *verdicts) | {"charts": charts}
    out = pick(payload, "dashboard_id", "env_id", "filters")
    keys = ("chart_id", "name", "columns", "row_count", "truncated", "filters_skipped", "error")
    charts = [
        pick(chart, *keys) | {"rows": listed(chart.get("rows"))[:DATA_ROWS_SHOWN]}
        for chart in listed(payload.get("charts"))
    ]
    return out | {"charts": charts}


@environment_read(affinity=(D,), shape=_data)
def get_dashboard_data(args: DashboardDataArgs, scope: CallScope) -> ToolRequest:
    """The numbers a dashboard's charts show, with the page's filters applied.

    Each chart's rows as Superset computes them, with the dashboard filters the page had (those
    a chart's dataset has a column for); says which filters it used. With compare_env_id, the same
    charts with the same filters in both environments, every differing number named.
    """
    dashboard_id = object_id(args.dashboard_id, scope, D)
    filters = [one.model_dump(mode="json") for one in scope.filters]
    path = api_path(DASHBOARDS, dashboard_id, "data")
    if args.compare_env_id is not None:
        body: dict[str, Any] = {"other_env_id": args.compare_env_id, "filters": filters}
        body |= {"in_env_id": args.env_id} if args.env_id else {}
        compare = api_path(DASHBOARDS, dashboard_id, "data", "compare")
        return ToolRequest(method="POST", path=compare, params=env_param(scope), json_body=body)
    body = {"filters": filters, "chart_id": args.chart_id or scope.chart_id, "row_limit": 20}
    body |= {"in_env_id": args.env_id} if args.env_id else {}
    return ToolRequest(method="POST", path=path, params=env_param(scope), json_body=body)
