"""Checks that need no model: structure from metadata, and each chart's query run by Superset."""

from __future__ import annotations

from typing import Any

from sstools.domain.validation.facts import ChartFacts, DashboardFacts
from sstools.domain.validation.models import Finding, FindingKind, ObjectType, Severity
from sstools.environments import Stage
from sstools.superset import SupersetClient
from sstools.superset.errors import (
    SupersetBadRequest,
    SupersetError,
    SupersetForbidden,
    SupersetNotFound,
    SupersetUnavailable,
)
from sstools.texts import validation as texts

QUERY_ROW_LIMIT = 10  # enough to prove the query runs; the data itself is not looked at


Target = tuple[ObjectType, int | None, str]  # object type, its id, its name


def _finding(
    kind: FindingKind, severity: Severity, target: Target, message: str, fix: str
) -> Finding:
    object_type, object_id, name = target
    return Finding(
        kind=kind,
        severity=severity,
        object_type=object_type,
        object_id=object_id,
        object_name=name,
        message=message,
        fix=fix,
    )


# Each structural finding's severity, what is wrong and how to fix it.
_STRUCTURAL: dict[FindingKind, tuple[Severity, str, str]] = {
    "empty_dashboard": ("warning", texts.EMPTY_DASHBOARD, texts.EMPTY_DASHBOARD_FIX),
    "no_owners": ("warning", texts.NO_OWNERS, texts.NO_OWNERS_FIX),
    "unpublished_in_prod": ("warning", texts.UNPUBLISHED, texts.UNPUBLISHED_FIX),
    "missing_dataset": ("error", texts.MISSING_DATASET, texts.MISSING_DATASET_FIX),
    "no_description": ("info", texts.NO_DESCRIPTION, texts.NO_DESCRIPTION_FIX),
    "dataset_without_database": ("error", texts.NO_DATABASE, texts.NO_DATABASE_FIX),
}


def _structural(kind: FindingKind, target: Target, message: str | None = None) -> Finding:
    severity, usual, fix = _STRUCTURAL[kind]
    return _finding(kind, severity, target, message or usual, fix)


def structural_findings(facts: DashboardFacts) -> list[Finding]:
    """Missing datasets, empty dashboard, datasets without a database, owners, descriptions,
    unpublished in prod."""
    found: list[Finding] = []
    dashboard: Target = ("dashboard", facts.dashboard_id, facts.title)
    if not facts.charts:
        found.append(_structural("empty_dashboard", dashboard))
    if not facts.owners:
        found.append(_structural("no_owners", dashboard))
    if facts.stage is Stage.prod and not facts.published:
        found.append(_structural("unpublished_in_prod", dashboard))
    for chart in facts.charts:
        target: Target = ("chart", chart.id, chart.name)
        if facts.dataset(chart.dataset_id) is None:
            numbered = texts.MISSING_DATASET_NUMBERED.format(dataset=chart.dataset_id)
            found.append(
                _structural("missing_dataset", target, numbered if chart.dataset_id else None)
            )
        if not chart.description:
            found.append(_structural("no_description", target))
    for dataset in facts.datasets:
        target = ("dataset", dataset.id, dataset.name)
        if dataset.database_id is None:
            found.append(_structural("dataset_without_database", target))
        if not dataset.owners:
            found.append(_structural("no_owners", target))
    return found


def _listed(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    return list(value) if isinstance(value, list) else [value]


def _unique(items: list[Any]) -> list[Any]:
    seen: list[Any] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def chart_query(chart: ChartFacts) -> dict[str, Any]:
    """A query context from the chart's saved form data: its columns, metrics and filters.

    Superset builds the real one in the browser per chart type; the same columns, metrics and
    filters against the same dataset fail the same way when a column or metric is gone.
    """
    params = chart.params
    if params.get("query_mode") == "raw":
        columns = _listed(params.get("all_columns"))
        metrics: list[Any] = []
    else:
        columns = [
            *_listed(params.get("x_axis")),
            *_listed(params.get("groupby")),
            *_listed(params.get("columns")),
        ]
        metrics = [
            *_listed(params.get("metrics")),
            *_listed(params.get("metric")),
            *_listed(params.get("secondary_metric")),
            *_listed(params.get("x")),
            *_listed(params.get("y")),
            *_listed(params.get("size")),
        ]
    filters: list[dict[str, Any]] = []
    where: list[str] = []
    having: list[str] = []
    for adhoc in _listed(params.get("adhoc_filters")):
        if not isinstance(adhoc, dict):
            continue
        if adhoc.get("expressionType") == "SQL" and adhoc.get("sqlExpression"):
            clause = having if adhoc.get("clause") == "HAVING" else where
            clause.append(f"({adhoc['sqlExpression']})")
        elif adhoc.get("subject") and adhoc.get("operator"):
            filters.append(
                {"col": adhoc["subject"], "op": adhoc["operator"], "val": adhoc.get("comparator")}
            )
    query: dict[str, Any] = {
        "columns": _unique(columns),
        "metrics": _unique(metrics),
        "filters": filters,
        "extras": {"where": " AND ".join(where), "having": " AND ".join(having)},
        "row_limit": QUERY_ROW_LIMIT,
    }
    return {
        "datasource": {"id": chart.dataset_id, "type": "table"},
        "queries": [query],
        "result_type": "full",
        "result_format": "json",
        "force": False,
    }


def _failed_in_body(body: Any) -> str | None:
    """A 200 whose query result says it failed (Superset reports some errors this way)."""
    for result in (body or {}).get("result") or []:
        if isinstance(result, dict) and (result.get("error") or result.get("status") == "failed"):
            return str(result.get("error") or "failed")
    return None


async def chart_query_error(client: SupersetClient, chart: ChartFacts) -> str | None:
    """What Superset says when it runs the chart's query; None when it runs.

    A chart saved with a query context runs exactly that (``GET /chart/<id>/data/``); one
    without (created through the API) runs one built from its form data (``POST /chart/data``).
    """
    try:
        if chart.query_context:
            body = await client.get_json(f"/api/v1/chart/{chart.id}/data/")
        else:
            body = await client.post_json("/api/v1/chart/data", chart_query(chart))
    except (SupersetBadRequest, SupersetNotFound, SupersetForbidden) as exc:
        return exc.message
    except SupersetUnavailable as exc:
        if exc.status is None:  # Superset itself did not answer: not the chart's fault
            raise
        return exc.message
    except SupersetError as exc:
        return exc.message
    return _failed_in_body(body)


async def query_findings(client: SupersetClient, facts: DashboardFacts) -> list[Finding]:
    """Run every chart whose dataset exists; a failing one is an error."""
    found = []
    for chart in facts.charts:
        if facts.dataset(chart.dataset_id) is None:
            continue  # already an error of its own: the query cannot even be built
        error = await chart_query_error(client, chart)
        if error is not None:
            target: Target = ("chart", chart.id, chart.name)
            message = texts.QUERY_FAILED.format(error=error)
            found.append(_finding("query_failed", "error", target, message, texts.QUERY_FAILED_FIX))
    return found
