"""What the client returns: typed views of Superset's objects, trimmed to what sstools uses."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field

T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    items: list[T]
    total: int
    page: int
    page_size: int


class Owner(BaseModel):
    id: int | None = None
    name: str


class DashboardSummary(BaseModel):
    id: int
    title: str
    slug: str | None = None
    published: bool
    changed_on: datetime | None = None
    url: str


class ChartRef(BaseModel):
    id: int
    name: str
    viz_type: str | None = None
    dataset_id: int | None = None


class DatasetRef(BaseModel):
    id: int
    name: str
    schema_: str | None = Field(default=None, alias="schema")
    database_id: int | None = None
    database_name: str | None = None

    model_config = {"populate_by_name": True}


class DashboardDetail(DashboardSummary):
    owners: list[Owner]
    roles: list[str]  # the dashboard's own roles (DASHBOARD_RBAC); empty means "by dataset access"
    charts: list[ChartRef]
    datasets: list[DatasetRef]
    css: str | None = None
    json_metadata: dict[str, Any] | None = None


class DatasetSummary(BaseModel):
    id: int
    name: str
    schema_: str | None = Field(default=None, alias="schema")
    database_id: int | None = None
    database_name: str | None = None
    kind: str | None = None
    changed_on: datetime | None = None

    model_config = {"populate_by_name": True}


class Column(BaseModel):
    name: str
    type: str | None = None


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


class Database(BaseModel):
    id: int
    name: str
    backend: str | None = None
    expose_in_sqllab: bool | None = None
    allow_dml: bool | None = None


class SqlResult(BaseModel):
    columns: list[str]
    rows: list[dict[str, Any]]
    row_count: int
    limited: bool


class RolePermissions(BaseModel):
    role: str
    permissions: list[tuple[str, str]]  # (permission, view menu)
