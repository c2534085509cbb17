"""Dataset and database tools: explore, format and execute SQL, audit permissions, create."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from sstools.agent.context import ObjectType
from sstools.agent.texts import tools as texts
from sstools.agent.tools.call import CallScope, ToolArgumentError, ToolRequest, env_param, object_id
from sstools.agent.tools.paths import ObjectId, PathName, api_path
from sstools.agent.tools.shaping import head, listed, pick
from sstools.agent.tools.spec import (
    DetailArgs,
    ToolArgs,
    ToolKind,
    assistant_tool,
    environment_read,
)
from sstools.auth.roles import Role
from sstools.sql import SqlKind, SqlSyntaxError, classify

S = ObjectType.dataset
D = ObjectType.dashboard


class ExploreArgs(DetailArgs):
    database_id: ObjectId | None = Field(default=None, description="Omit to list databases")
    schema_name: PathName | None = Field(default=None, description="Omit to list schemas")
    table: PathName | None = Field(default=None, description="Omit to list tables")


def _overview(payload: dict[str, Any]) -> dict[str, Any]:
    """A dataset: its source, problems and review first; columns, metrics and dependents by name."""
    out = pick(payload, "id", "name", "kind", "schema", "database_id", "database_name", "sql")
    out |= pick(payload, "changed_on", "review", "problems", "sstools_url", "superset_url")
    out["owners"] = [pick(owner, "id", "name") for owner in listed(payload.get("owners"))]
    columns = (pick(column, "name", "type") for column in listed(payload.get("columns")))
    head(out, "columns", columns, shown=30)
    head(out, "metrics", listed(payload.get("metrics")))
    charts = (pick(chart, "id", "name") for chart in listed(payload.get("charts")))
    head(out, "charts", charts, shown=15)
    dashboards = (pick(dashboard, "id", "title") for dashboard in listed(payload.get("dashboards")))
    return head(out, "dashboards", dashboards, shown=15)


def _explored(payload: Any, args: ExploreArgs) -> Any:
    """The level asked for: a dataset's overview, or databases, schemas, tables or columns."""
    if isinstance(payload, dict) and {"columns", "review"} <= payload.keys():
        return _overview(payload)
    if not isinstance(payload, list) or len(payload) <= 50:
        return payload
    return head({}, "items", payload, shown=50)


@environment_read(affinity=(S,), shape=_explored)
def superset_explore_database(args: ExploreArgs, scope: CallScope) -> ToolRequest:
    """Databases, schemas, tables, columns; on a dataset's page with no arguments, its overview.

    To drill down: with no arguments it lists, then with database_id. In it: its
    database and table, columns and metrics, dependent charts and dashboards, review status and
    problems found (columns charts use that no longer exist, no owner, never reviewed).
    """
    params = env_param(scope)
    if args.database_id is None:
        in_dataset = scope.object_type is S and scope.object_id is not None
        if in_dataset and args.schema_name is None and args.table is None:
            return ToolRequest(
                method="GET",
                path=api_path("/api/datasets", object_id(None, scope, S), "overview"),
                params=params,
            )
        return ToolRequest(method="GET", path="/api/databases", params=params)
    database = ("/api/databases", args.database_id, "schemas")
    if args.schema_name is None:
        return ToolRequest(method="GET", path=api_path(*database), params=params)
    tables = (*database, args.schema_name, "tables")
    if args.table is None:
        return ToolRequest(method="GET", path=api_path(*tables), params=params)
    return ToolRequest(method="GET", path=api_path(*tables, args.table, "columns"), params=params)


class FormatSqlArgs(ToolArgs):
    sql: str = Field(min_length=1, max_length=20_000)
    database_id: ObjectId | None = Field(default=None, description="For the database's dialect")


@assistant_tool(kind=ToolKind.read, affinity=(S,))
def superset_format_sql(args: FormatSqlArgs, scope: CallScope) -> ToolRequest:
    """Pretty-print SQL.

    In a database's dialect when database_id is given.
    """
    body: dict[str, object] = {"sql": args.sql}
    if args.database_id is not None and scope.env_id is not None:
        body |= {"database_id": args.database_id, "env_id": scope.env_id}
    return ToolRequest(method="POST", path="/api/sql/format", json_body=body)


class AuditArgs(ToolArgs):
    object_type: str | None = Field(
        default=None,
        pattern="^(dataset|dashboard|database)$",
        description="dataset, dashboard or database; defaults to the page's object (a dataset)",
    )
    object_id: ObjectId | None = Field(default=None, description="Defaults to the context")


def audited_type(object_type: str | None, scope: CallScope) -> str:
    """What an audit reads: the type named, else the page's dashboard or dataset, else a dataset."""
    if object_type is not None:
        return object_type
    return D.value if scope.object_type is D else S.value


@environment_read(affinity=(S, D))
def superset_audit_permissions(args: AuditArgs, scope: CallScope) -> ToolRequest:
    """Which Superset roles can reach a dataset.

    Or a dashboard, database, and through which grant.
    """
    kind = audited_type(args.object_type, scope)
    target = ObjectType(kind) if kind != "database" else None
    if target is None:
        if args.object_id is None:
            raise ToolArgumentError(texts.NO_DATABASE)
        identifier = args.object_id
    else:
        identifier = object_id(args.object_id, scope, target)
    params = env_param(scope) | {"object_type": kind, "object_id": identifier}
    return ToolRequest(method="GET", path="/api/permissions/audit", params=params)


class ExecuteSqlArgs(ToolArgs):
    sql: str = Field(min_length=1, max_length=20_000)
    database_id: ObjectId
    limit: int = Field(default=100, ge=1, le=1000)


_ROWS_SHOWN = 30


def _rows(payload: Any, args: ExecuteSqlArgs) -> Any:
    """Rows as arrays in the order of ``columns`` (names once, not per row); the count kept."""
    columns = [str(column) for column in payload["columns"]]
    rows = [
        [row.get(column) for column in columns] if isinstance(row, dict) else row
        for row in payload["rows"]
    ]
    out = {"columns": columns, "row_count": payload.get("row_count", len(rows))}
    out |= pick(payload, "limited")
    return head(out, "rows", rows, shown=_ROWS_SHOWN, how=texts.MORE_QUERY)


def _sql_kind(args: ExecuteSqlArgs) -> ToolKind:
    """Decided per call by parsing, never laxer than the database's own dialect would be.

    The database's backend is not known here, so the SQL is read in every dialect sstools knows
    (``dialect=None``): any reading that writes, readings that disagree, or SQL no dialect can
    parse make it a write, so the card is shown.
    """
    try:
        verdict = classify(args.sql, dialect=None)
    except SqlSyntaxError:
        return ToolKind.write
    return ToolKind.read if verdict.kind is SqlKind.read else ToolKind.write


@environment_read(affinity=(S,), classify=_sql_kind, shape=_rows)
def superset_execute_sql(args: ExecuteSqlArgs, scope: CallScope) -> ToolRequest:
    """Run SQL in SQL Lab.

    SELECTs for anyone; statements that change data need an engineer.
    """
    return ToolRequest(
        method="POST",
        path="/api/sql/execute",
        params=env_param(scope),
        json_body={"database_id": args.database_id, "sql": args.sql, "limit": args.limit},
    )


class CreateDatasetArgs(ToolArgs):
    database_id: ObjectId
    schema_name: str | None = Field(
        default=None, min_length=1, max_length=250, description="Required with table"
    )
    table: str | None = Field(
        default=None, min_length=1, max_length=250, description="Physical: the table to wrap"
    )
    sql: str | None = Field(
        default=None, min_length=1, max_length=20_000, description="Virtual: one read-only query"
    )
    name: str | None = Field(
        default=None, min_length=1, max_length=250, description="Virtual: the dataset's name"
    )


@assistant_tool(kind=ToolKind.write, min_role=Role.engineer, needs_env=True, affinity=(S,))
def superset_create_dataset(args: CreateDatasetArgs, scope: CallScope) -> ToolRequest:
    """Create a dataset: physical or virtual (the SQL must only read).

    Physical: database_id, schema_name, table; virtual: database_id, sql, name. Refused: a
    missing table, a name taken, SQL that writes.
    """
    body: dict[str, object] = {**env_param(scope), "database_id": args.database_id}
    if args.schema_name is not None:
        body["schema"] = args.schema_name
    if args.sql is not None:
        body |= {"sql": args.sql, "name": args.name}
    else:
        if args.table is None:
            raise ToolArgumentError(texts.NO_TABLE_OR_SQL)
        body["table"] = args.table
    return ToolRequest(method="POST", path="/api/datasets", json_body=body)
