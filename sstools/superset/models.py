"""What the client returns: typed views of Superset's objects, trimmed to what sstools uses.

Each model maps Superset's raw JSON in its own ``from_api`` constructor, so the shape of one
answer is read in one place and the client only fetches.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, Generic, Self, TypeVar

from pydantic import AfterValidator, BaseModel, Field

T = TypeVar("T")

Raw = Mapping[str, Any]  # one object of Superset's JSON, as it came


def _as_utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


# Superset's ``changed_on_utc`` has no offset; RFC 3339 (our schema's date-time) needs one.
UtcDatetime = Annotated[datetime, AfterValidator(_as_utc)]


def _changed_on(raw: Raw) -> Any:
    return raw.get("changed_on_utc") or raw.get("changed_on")


class Page(BaseModel, Generic[T]):
    items: list[T]
    total: int
    page: int
    page_size: int

    @classmethod
    def of(cls, found: Sequence[T], *, page: int, page_size: int) -> Page[T]:
        """Page ``page`` (from 0) of everything ``found``."""
        start = page * page_size
        return cls(
            items=list(found[start : start + page_size]),
            total=len(found),
            page=page,
            page_size=page_size,
        )


class Owner(BaseModel):
    id: int | None = None
    name: str

    @classmethod
    def from_api(cls, raw: Raw) -> Self:
        name = " ".join(part for part in (raw.get("first_name"), raw.get("last_name")) if part)
        return cls(id=raw.get("id"), name=name or str(raw.get("username") or "?"))


class DashboardSummary(BaseModel):
    id: int
    title: str
    slug: str | None = None
    published: bool
    changed_on: UtcDatetime | None = None
    url: str

    @classmethod
    def from_api(cls, raw: Raw, *, superset_url: str) -> Self:
        return cls(
            id=raw["id"],
            title=raw.get("dashboard_title") or "",
            slug=raw.get("slug"),
            published=bool(raw.get("published")),
            changed_on=_changed_on(raw),
            url=f"{superset_url}/superset/dashboard/{raw['id']}/",
        )


def _chart_dataset_id(raw: Raw) -> int | None:
    """``form_data.datasource`` is ``"12__table"``; an orphaned chart has ``"None__table"``."""
    datasource = str((raw.get("form_data") or {}).get("datasource") or "")
    head = datasource.split("__", 1)[0]
    return int(head) if head.isascii() and head.isdigit() else None


class ChartRef(BaseModel):
    id: int
    name: str
    viz_type: str | None = None
    dataset_id: int | None = None

    @classmethod
    def from_api(cls, raw: Raw, *, dataset_id: int | None = None) -> Self:
        """A dashboard's chart (dataset in ``form_data``) or a dataset's (``dataset_id`` given)."""
        form_data = raw.get("form_data") or {}
        return cls(
            id=raw["id"],
            name=raw.get("slice_name") or "",
            viz_type=raw.get("viz_type") or form_data.get("viz_type"),
            dataset_id=dataset_id if dataset_id is not None else _chart_dataset_id(raw),
        )


class DatasetSummary(BaseModel):
    """A dataset as lists and dashboards show it (``kind``/``changed_on`` only from the list)."""

    id: int
    name: str
    schema_: str | None = Field(default=None, alias="schema")
    database_id: int | None = None
    database_name: str | None = None
    kind: str | None = None
    changed_on: UtcDatetime | None = None

    model_config = {"populate_by_name": True}

    @classmethod
    def from_api(cls, raw: Raw) -> Self:
        database = raw.get("database") or {}
        return cls(
            id=raw["id"],
            name=raw.get("table_name") or raw.get("datasource_name") or "",
            schema=raw.get("schema"),
            database_id=database.get("id"),
            database_name=database.get("database_name"),
            kind=raw.get("kind"),
            changed_on=_changed_on(raw),
        )


class DashboardDetail(DashboardSummary):
    owners: list[Owner]
    roles: list[str]  # the dashboard's own roles (DASHBOARD_RBAC); empty means "by dataset access"
    charts: list[ChartRef]
    datasets: list[DatasetSummary]
    css: str | None = None
    json_metadata: dict[str, Any] | None = None

    @classmethod
    def from_api(  # type: ignore[override]
        cls, raw: Raw, *, charts: Sequence[Raw], datasets: Sequence[Raw], superset_url: str
    ) -> Self:
        """``raw`` from ``/dashboard/<id>``; its ``/charts`` and ``/datasets`` results."""
        metadata = raw.get("json_metadata")
        return cls(
            **DashboardSummary.from_api(raw, superset_url=superset_url).model_dump(),
            owners=[Owner.from_api(owner) for owner in raw.get("owners") or []],
            roles=[role["name"] for role in raw.get("roles") or []],
            charts=[ChartRef.from_api(chart) for chart in charts],
            datasets=[DatasetSummary.from_api(dataset) for dataset in datasets],
            css=raw.get("css"),
            json_metadata=json.loads(metadata) if metadata else None,
        )


class Column(BaseModel):
    name: str
    type: str | None = None

    @classmethod
    def from_api(cls, raw: Raw) -> Self:
        """A dataset's column (``column_name``) or a table's, from its metadata (``name``)."""
        return cls(name=raw.get("column_name") or raw["name"], type=raw.get("type"))


class DashboardRef(BaseModel):
    id: int
    title: str


class DatasetDetail(DatasetSummary):
    columns: list[Column]
    metrics: list[str]
    owners: list[Owner]
    database_backend: str | None = None
    sql: str | None = None
    charts: list[ChartRef]
    dashboards: list[DashboardRef]

    @classmethod
    def from_api(cls, raw: Raw, *, related: Raw | None = None) -> Self:
        """``raw`` from ``/dataset/<id>``; ``related`` from its ``/related_objects``."""
        related = related or {}
        return cls(
            **DatasetSummary.from_api(raw).model_dump(by_alias=True),
            database_backend=(raw.get("database") or {}).get("backend"),
            sql=raw.get("sql"),
            columns=[Column.from_api(column) for column in raw.get("columns") or []],
            metrics=[metric["metric_name"] for metric in raw.get("metrics") or []],
            owners=[Owner.from_api(owner) for owner in raw.get("owners") or []],
            charts=[
                ChartRef.from_api(chart, dataset_id=raw["id"])
                for chart in (related.get("charts") or {}).get("result", [])
            ],
            dashboards=[
                DashboardRef(id=dash["id"], title=dash.get("title") or "")
                for dash in (related.get("dashboards") or {}).get("result", [])
            ],
        )


class Database(BaseModel):
    id: int
    name: str
    backend: str | None = None
    expose_in_sqllab: bool | None = None
    allow_dml: bool | None = None

    @classmethod
    def from_api(cls, raw: Raw, *, database_id: int | None = None) -> Self:
        """A list row, or ``/database/<id>``'s result (which may omit its own id)."""
        return cls(
            id=raw.get("id", database_id),
            name=raw["database_name"],
            backend=raw.get("backend"),
            expose_in_sqllab=raw.get("expose_in_sqllab"),
            allow_dml=raw.get("allow_dml"),
        )


class SqlResult(BaseModel):
    columns: list[str]
    rows: list[dict[str, Any]]
    row_count: int
    limited: bool

    @classmethod
    def from_api(cls, body: Raw, *, row_limit: int) -> Self:
        """SQL Lab's synchronous answer, cut to ``row_limit`` rows."""
        rows = list(body.get("data") or [])
        kept = rows[:row_limit]
        return cls(
            columns=[col.get("column_name") or col.get("name") for col in body.get("columns", [])],
            rows=kept,
            row_count=len(kept),
            limited=len(rows) >= row_limit,
        )


class RolePermissions(BaseModel):
    role: str
    permissions: list[tuple[str, str]]  # (permission, view menu)

    @classmethod
    def from_api(cls, role: Raw, pairs: Mapping[int, tuple[str, str]]) -> Self:
        """A role row and every (permission, view menu) pair by its id."""
        return cls(
            role=role["name"],
            permissions=[pairs[pid] for pid in role.get("permission_ids", []) if pid in pairs],
        )
