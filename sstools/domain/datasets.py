"""Datasets: the one payload the JSON route and the dataset page share (dataset with our review),
the overview the agent answers «есть ли проблемы с этим датасетом?» with, and creating one."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from enum import StrEnum
from typing import Any

import anyio.to_thread
from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.domain.reviews import Review, ReviewStatus, get_review
from sstools.errors import SstoolsError
from sstools.sql import SqlKind, SqlSyntaxError, classify_for_backend
from sstools.superset import SupersetClient
from sstools.superset.errors import (
    SupersetBadRequest,
    SupersetNotFound,
    SupersetUnavailable,
)
from sstools.superset.models import DatasetDetail
from sstools.texts import datasets as texts

# Charts read for the overview's missing-column check: enough for any real dataset, bounded.
MAX_CHARTS_CHECKED = 50


class DatasetWithReview(DatasetDetail):
    review: Review


async def dataset_with_review(
    superset: SupersetClient, session: AsyncSession, dataset_id: int
) -> DatasetWithReview:
    """The dataset as Superset has it, its dependents, and the review kept in our database."""
    dataset = await superset.get_dataset(dataset_id)
    review = await get_review(session, superset.env.id, dataset_id)
    return DatasetWithReview(**dataset.model_dump(by_alias=True), review=review)


# -- overview -------------------------------------------------------------------------------


class ProblemKind(StrEnum):
    missing_column = "missing_column"  # a chart uses a column (or saved metric) the dataset lacks
    no_owner = "no_owner"
    never_reviewed = "never_reviewed"
    changes_requested = "changes_requested"


class DatasetProblem(BaseModel):
    kind: ProblemKind
    chart_id: int | None = None
    chart_name: str | None = None
    missing: list[str] = []  # the column or metric names the chart refers to


class DatasetOverview(DatasetWithReview):
    problems: list[DatasetProblem]
    sstools_url: str
    superset_url: str


# Form-data keys that hold column names (one name, a list of names, or adhoc objects).
_COLUMN_KEYS = (
    "groupby",
    "columns",
    "all_columns",
    "x_axis",
    "granularity_sqla",
    "series",
    "entity",
)
_METRIC_KEYS = (
    "metrics",
    "metric",
    "metric_2",
    "secondary_metric",
    "percent_metrics",
    "timeseries_limit_metric",
    "size",
    "x",
    "y",
)


def _column_names(value: Any) -> Iterator[str]:
    """Column names in a form-data value: a string, a list, or adhoc columns (SQL ones skipped)."""
    if isinstance(value, str) and value:
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _column_names(item)
    elif isinstance(value, dict):
        if value.get("expressionType") == "SQL" or value.get("sqlExpression"):
            return
        if isinstance(value.get("column"), dict):  # an adhoc SIMPLE metric
            yield from _column_names(value["column"].get("column_name"))
        elif "column_name" in value:
            yield from _column_names(value.get("column_name"))
        elif value.get("expressionType") == "SIMPLE" and "subject" in value:  # adhoc filter
            yield from _column_names(value.get("subject"))


def chart_references(params: dict[str, Any]) -> tuple[set[str], set[str]]:
    """(columns, saved metrics) a chart's form data refers to by name."""
    columns: set[str] = set()
    metrics: set[str] = set()
    for key in _COLUMN_KEYS:
        columns.update(_column_names(params.get(key)))
    columns.update(_column_names(params.get("adhoc_filters")))
    for key in _METRIC_KEYS:
        value = params.get(key)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item:
                metrics.add(item)  # a saved metric, named
            elif isinstance(item, dict):
                columns.update(_column_names(item))
    return columns, metrics


async def _missing_columns(
    superset: SupersetClient, dataset: DatasetDetail
) -> list[DatasetProblem]:
    known_columns = {column.name for column in dataset.columns}
    known_metrics = set(dataset.metrics)
    charts = dataset.charts[:MAX_CHARTS_CHECKED]
    all_params = await asyncio.gather(*(superset.chart_params(chart.id) for chart in charts))
    problems = []
    for chart, params in zip(charts, all_params, strict=True):
        columns, metrics = chart_references(params)
        missing = sorted(columns - known_columns) + sorted(metrics - known_metrics)
        if missing:
            problems.append(
                DatasetProblem(
                    kind=ProblemKind.missing_column,
                    chart_id=chart.id,
                    chart_name=chart.name,
                    missing=missing,
                )
            )
    return problems


async def dataset_overview(
    superset: SupersetClient, session: AsyncSession, dataset_id: int
) -> DatasetOverview:
    """Everything a person asks about a dataset: where it reads from, what it offers, who uses
    it, whether it was reviewed, and what looks wrong."""
    dataset = await dataset_with_review(superset, session, dataset_id)
    problems = await _missing_columns(superset, dataset)
    if not dataset.owners:
        problems.append(DatasetProblem(kind=ProblemKind.no_owner))
    if dataset.review.status is ReviewStatus.unreviewed:
        problems.append(DatasetProblem(kind=ProblemKind.never_reviewed))
    elif dataset.review.status is ReviewStatus.changes_requested:
        problems.append(DatasetProblem(kind=ProblemKind.changes_requested))
    env_id = superset.env.id
    return DatasetOverview(
        **dataset.model_dump(by_alias=True),
        problems=problems,
        sstools_url=f"/datasets/{dataset_id}?env_id={env_id}",
        superset_url=(
            f"{superset.env.url}/explore/?datasource_type=table&datasource_id={dataset_id}"
        ),
    )


# -- creation --------------------------------------------------------------------------------


class DatasetRefused(SstoolsError):
    """A create request that cannot be carried out; ``field``: the request field it blames.

    DatasetRefused
    ├── DatasetInvalid   what the request names does not exist or cannot be a dataset
    ├── DatasetExists    a dataset of that name is there already
    └── DatabaseSilent   Superset cannot connect to the database
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class DatasetInvalid(DatasetRefused):
    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message, field=field)


class DatasetExists(DatasetRefused):
    pass


class DatabaseSilent(DatasetRefused):
    pass


class CreatedDataset(BaseModel):
    id: int
    name: str
    kind: str  # physical | virtual
    database_id: int
    schema_: str | None = Field(default=None, alias="schema")
    sstools_url: str
    superset_url: str

    model_config = {"populate_by_name": True}


async def _existing(
    superset: SupersetClient, database_id: int, schema: str | None, name: str
) -> int | None:
    """The id of the dataset Superset would call a duplicate (same database, schema and name)."""
    rows = await superset.list_all(
        "dataset",
        columns=["id", "table_name", "schema", "database.id"],
        filters=[{"col": "table_name", "opr": "eq", "value": name}],
    )
    for row in rows:
        same_schema = (row.get("schema") or None) == (schema or None)
        if (row.get("database") or {}).get("id") == database_id and same_schema:
            return int(row["id"])
    return None


async def _answering_schemas(superset: SupersetClient, database_id: int, name: str) -> list[str]:
    """The database's schemas; a database Superset cannot connect to is refused, naming it."""
    try:
        return await superset.list_schemas(database_id)
    except SupersetUnavailable as exc:
        message = texts.DATABASE_SILENT.format(
            name=name, id=database_id, env=superset.env.id, message=exc.message
        )
        raise DatabaseSilent(message) from exc


async def create_dataset(
    superset: SupersetClient,
    *,
    database_id: int,
    schema: str | None,
    table: str | None,
    sql: str | None,
    name: str | None,
) -> CreatedDataset:
    """A physical dataset over ``schema.table``, or a virtual one over read-only ``sql``."""
    try:
        database = await superset.get_database(database_id)
    except SupersetNotFound as exc:
        message = texts.NO_DATABASE.format(database=database_id, env=superset.env.id)
        raise DatasetInvalid(message, field="database_id") from exc
    schemas = await _answering_schemas(superset, database_id, database.name)
    if schema is not None and schema not in schemas:
        known = ", ".join(schemas) or texts.NO_SCHEMAS
        message = texts.NO_SCHEMA.format(schema=schema, database=database.name, known=known)
        raise DatasetInvalid(message, field="schema")
    if sql is None:
        assert table is not None
        if schema is None:
            raise DatasetInvalid(texts.SCHEMA_MISSING, field="schema")
        if table not in await superset.list_tables(database_id, schema):
            message = texts.NO_TABLE.format(table=table, schema=schema, database=database.name)
            raise DatasetInvalid(message, field="table")
        dataset_name, kind, name_field = table, "physical", "table"
    else:
        assert name is not None
        await _refuse_writes(sql, database.backend)
        dataset_name, kind, name_field = name, "virtual", "name"
    duplicate = await _existing(superset, database_id, schema, dataset_name)
    if duplicate is not None:
        message = texts.EXISTS.format(name=dataset_name, database=database.name, id=duplicate)
        raise DatasetExists(message, field=name_field)
    if sql is not None:
        await _runs(superset, sql, database_id, schema)
    try:
        new_id = await superset.create_dataset(database_id, dataset_name, schema=schema, sql=sql)
    except SupersetBadRequest as exc:
        if "already exists" in exc.message:  # created meanwhile by someone else
            raise DatasetExists(exc.message, field=name_field) from exc
        raise DatasetInvalid(exc.message, field=name_field) from exc
    env_id = superset.env.id
    return CreatedDataset(
        id=new_id,
        name=dataset_name,
        kind=kind,
        database_id=database_id,
        schema_=schema,
        sstools_url=f"/datasets/{new_id}?env_id={env_id}",
        superset_url=f"{superset.env.url}/explore/?datasource_type=table&datasource_id={new_id}",
    )


async def _refuse_writes(sql: str, backend: str | None) -> None:
    """SQL that writes is refused, by the classifier SQL execute uses, in the database's dialect."""
    try:
        verdict = await anyio.to_thread.run_sync(classify_for_backend, sql, backend)
    except SqlSyntaxError as exc:
        raise DatasetInvalid(str(exc), field="sql") from exc
    if verdict.kind is not SqlKind.read:
        raise DatasetInvalid(texts.SQL_WRITES.format(reason=verdict.reason), field="sql")
    if verdict.statements != 1:
        raise DatasetInvalid(texts.SQL_SEVERAL, field="sql")


async def _runs(superset: SupersetClient, sql: str, database_id: int, schema: str | None) -> None:
    """Run the query once (one row): a query that fails would make a dataset no chart can use."""
    try:
        await superset.execute_sql(database_id, sql, schema=schema, row_limit=1)
    except SupersetBadRequest as exc:
        raise DatasetInvalid(texts.SQL_FAILS.format(message=exc.message), field="sql") from exc
