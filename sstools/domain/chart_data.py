"""A dashboard's numbers as its charts show them, with the page's filters applied chart by chart:
each chart's query (its columns, metrics, own filters and time range, from its saved form data)
asked of Superset's chart data API with the filters its dataset has a column for.

Rows are bounded; a chart whose query Superset refuses says why, and the others still answer.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from sstools.http.dashboard_filters import DashboardFilter
from sstools.superset import SupersetClient
from sstools.superset.errors import SupersetError

MAX_ROWS = 100
MAX_CELL_CHARS = 200
Raw = Mapping[str, Any]


class ChartData(BaseModel):
    chart_id: int
    name: str
    viz_type: str | None
    columns: list[str]
    key_columns: list[str]  # what a row is of (its group-by values); the rest are its numbers
    rows: list[list[Any]]
    row_count: int  # what Superset counted, before the bound
    truncated: bool
    filters_applied: list[str]  # the filters' columns this chart's dataset has
    filters_skipped: list[str]  # the others: this chart's numbers ignore them
    error: str | None = None


class DashboardData(BaseModel):
    env_id: str
    dashboard_id: int
    filters: list[DashboardFilter]
    charts: list[ChartData]


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _own_filters(form_data: Raw) -> tuple[list[dict[str, Any]], list[str]]:
    """The chart's saved ad hoc filters: simple ones as query filters, SQL ones as WHERE text."""
    simple: list[dict[str, Any]] = []
    where: list[str] = []
    for one in _listed(form_data.get("adhoc_filters")):
        if not isinstance(one, Mapping) or one.get("clause", "WHERE") != "WHERE":
            continue
        if one.get("expressionType") == "SQL" and one.get("sqlExpression"):
            where.append(f"({one['sqlExpression']})")
        elif one.get("subject") and one.get("operator"):
            simple.append(
                {"col": one["subject"], "op": one["operator"], "val": one.get("comparator")}
            )
    return simple, where


def chart_query(
    form_data: Raw, filters: Sequence[DashboardFilter], row_limit: int
) -> dict[str, Any]:
    """The query Superset's chart data API runs for the chart, with ``filters`` added."""
    raw_mode = form_data.get("query_mode") == "raw"
    columns = [one for one in _listed(form_data.get("x_axis")) if isinstance(one, str)]
    columns += _listed(form_data.get("all_columns") if raw_mode else form_data.get("groupby"))
    metrics = (
        [] if raw_mode else _listed(form_data.get("metrics")) + _listed(form_data.get("metric"))
    )
    simple, where = _own_filters(form_data)
    query: dict[str, Any] = {
        "columns": columns,
        "metrics": metrics,
        "filters": simple + [one.superset_filter() for one in filters],
        "row_limit": min(int(form_data.get("row_limit") or row_limit), row_limit),
        "time_range": form_data.get("time_range") or "No filter",
        "extras": {"where": " AND ".join(where)} if where else {},
    }
    if metrics and columns:
        query["orderby"] = [[metrics[0], False]]
    return query


def _cell(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_CELL_CHARS:
        return value[: MAX_CELL_CHARS - 1] + "…"
    return value


async def _chart(
    client: SupersetClient,
    chart: Raw,
    dataset_columns: Mapping[int, set[str]],
    filters: Sequence[DashboardFilter],
    row_limit: int,
) -> ChartData:
    form_data = chart.get("form_data") or {}
    if isinstance(form_data, str):
        form_data = json.loads(form_data)
    datasource = str(form_data.get("datasource") or "")
    dataset_id = int(datasource.split("__")[0]) if datasource[:1].isdigit() else None
    known = dataset_columns.get(dataset_id, set()) if dataset_id is not None else set()
    applied = [one for one in filters if one.column in known]
    data = ChartData(
        chart_id=int(chart["id"]),
        name=str(chart.get("slice_name") or ""),
        viz_type=form_data.get("viz_type") or chart.get("viz_type"),
        columns=[],
        key_columns=[],
        rows=[],
        row_count=0,
        truncated=False,
        filters_applied=[one.column for one in applied],
        filters_skipped=[one.column for one in filters if one.column not in known],
    )
    if dataset_id is None:
        return data
    query = chart_query(form_data, applied, row_limit)
    body = {
        "datasource": {"id": dataset_id, "type": "table"},
        "queries": [query],
        "result_format": "json",
        "result_type": "full",
    }
    try:
        answer = await client.post_json("/api/v1/chart/data", body)
    except SupersetError as exc:
        return data.model_copy(update={"error": exc.message})
    result = (answer.get("result") or [{}])[0]
    names = [str(name) for name in result.get("colnames") or []]
    records = result.get("data") or []
    rows = [[_cell(record.get(name)) for name in names] for record in records[:row_limit]]
    count = int(result.get("rowcount") or len(records))
    keys = [name for name in names if name in query["columns"]]
    update = {"columns": names, "key_columns": keys, "rows": rows, "row_count": count}
    return data.model_copy(update=update | {"truncated": count > len(rows)})


async def dashboard_data(
    client: SupersetClient,
    dashboard_id: int,
    filters: Sequence[DashboardFilter],
    *,
    chart_id: int | None = None,
    row_limit: int = 20,
) -> DashboardData:
    """The dashboard's charts' data (or one chart's) with ``filters`` applied where they fit."""
    charts, datasets = await asyncio.gather(
        client.get_json(f"/api/v1/dashboard/{dashboard_id}/charts"),
        client.get_json(f"/api/v1/dashboard/{dashboard_id}/datasets"),
    )
    dataset_columns = {
        int(dataset["id"]): {
            str(column.get("column_name")) for column in dataset.get("columns") or []
        }
        for dataset in datasets.get("result") or []
    }
    wanted = [
        one
        for one in charts.get("result") or []
        if chart_id is None or int(one.get("id", 0)) == chart_id
    ]
    found = await asyncio.gather(
        *(_chart(client, one, dataset_columns, filters, min(row_limit, MAX_ROWS)) for one in wanted)
    )
    return DashboardData(
        env_id=client.env.id, dashboard_id=dashboard_id, filters=list(filters), charts=list(found)
    )
