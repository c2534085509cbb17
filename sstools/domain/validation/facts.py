"""What validation and documentation read about a dashboard, gathered once from Superset.

Plain pydantic data: a workflow step returns it and DBOS pickles it into its checkpoint.
"""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from sstools.environments import Stage
from sstools.superset import SupersetClient
from sstools.superset.models import Owner, UtcDatetime


class ChartFacts(BaseModel):
    id: int
    uuid: str | None
    name: str
    viz_type: str | None
    dataset_id: int | None  # None: the chart's dataset was deleted
    description: str | None
    params: dict[str, Any]
    query_context: dict[str, Any] | None
    owners: list[str]


class DatasetFacts(BaseModel):
    id: int
    name: str
    schema_name: str | None
    database_id: int | None
    database_name: str | None
    sql: str | None
    columns: list[str]
    metrics: list[str]
    owners: list[str]


class FilterFacts(BaseModel):
    name: str
    type: str
    columns: list[str]


class DashboardFacts(BaseModel):
    env_id: str
    stage: Stage
    dashboard_id: int
    uuid: str
    title: str
    slug: str | None
    published: bool
    changed_on: UtcDatetime | None
    url: str
    owners: list[str]
    certified_by: str | None
    charts: list[ChartFacts]
    datasets: list[DatasetFacts]
    filters: list[FilterFacts]

    def dataset(self, dataset_id: int | None) -> DatasetFacts | None:
        return next((one for one in self.datasets if one.id == dataset_id), None)


def _json(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        return {}  # a hand-edited, broken JSON field reads as empty rather than failing the run
    return value if isinstance(value, dict) else {}


def _owners(raw: Any) -> list[str]:
    return [Owner.from_api(owner).name for owner in raw or []]


def _filters(metadata: dict[str, Any]) -> list[FilterFacts]:
    found = []
    for native in metadata.get("native_filter_configuration") or []:
        targets = native.get("targets") or []
        columns = [
            str((target.get("column") or {}).get("name"))
            for target in targets
            if isinstance(target, dict) and (target.get("column") or {}).get("name")
        ]
        found.append(
            FilterFacts(
                name=str(native.get("name") or native.get("id") or "?"),
                type=str(native.get("filterType") or "?"),
                columns=columns,
            )
        )
    return found


def _dataset(raw: dict[str, Any]) -> DatasetFacts:
    database = raw.get("database") or {}
    return DatasetFacts(
        id=int(raw["id"]),
        name=str(raw.get("table_name") or raw.get("name") or raw["id"]),
        schema_name=raw.get("schema"),
        database_id=database.get("id"),
        database_name=database.get("name") or database.get("database_name"),
        sql=raw.get("sql") or None,
        columns=[str(column.get("column_name")) for column in raw.get("columns") or []],
        metrics=[str(metric.get("metric_name")) for metric in raw.get("metrics") or []],
        owners=_owners(raw.get("owners")),
    )


async def _chart(client: SupersetClient, chart_id: int) -> ChartFacts:
    raw = (await client.get_json(f"/api/v1/chart/{chart_id}"))["result"]
    return ChartFacts(
        id=chart_id,
        uuid=raw.get("uuid"),
        name=raw.get("slice_name") or "",
        viz_type=raw.get("viz_type"),
        dataset_id=raw.get("datasource_id"),
        description=raw.get("description") or None,
        params=_json(raw.get("params")),
        query_context=_json(raw.get("query_context")) or None,
        owners=_owners(raw.get("owners")),
    )


async def collect(client: SupersetClient, dashboard_id: int, stage: Stage) -> DashboardFacts:
    """The dashboard, each of its charts in detail, its datasets and native filters."""
    body, charts, datasets = await asyncio.gather(
        client.get_json(f"/api/v1/dashboard/{dashboard_id}"),
        client.get_json(f"/api/v1/dashboard/{dashboard_id}/charts"),
        client.get_json(f"/api/v1/dashboard/{dashboard_id}/datasets"),
    )
    raw = body["result"]
    chart_ids = sorted(int(chart["id"]) for chart in charts.get("result") or [])
    details = await asyncio.gather(*(_chart(client, chart_id) for chart_id in chart_ids))
    changed: datetime | None = raw.get("changed_on_utc") or raw.get("changed_on")
    return DashboardFacts(
        env_id=client.env.id,
        stage=stage,
        dashboard_id=dashboard_id,
        uuid=str(raw.get("uuid") or ""),
        title=raw.get("dashboard_title") or "",
        slug=raw.get("slug"),
        published=bool(raw.get("published")),
        changed_on=changed,
        url=f"{client.env.url}/superset/dashboard/{dashboard_id}/",
        owners=_owners(raw.get("owners")),
        certified_by=raw.get("certified_by") or None,
        charts=list(details),
        datasets=[_dataset(one) for one in datasets.get("result") or []],
        filters=_filters(_json(raw.get("json_metadata"))),
    )
