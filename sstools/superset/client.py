"""The Superset REST client: typed reads and writes of dashboards, datasets, databases and roles.

One :class:`SupersetClient` per environment (a :class:`~sstools.superset._session.SupersetSession`
that keeps its tokens and session cookie); the :class:`SupersetPool` owns one per configured
environment for the life of the app. Mapping Superset's JSON is the models' ``from_api``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar

import httpx
import structlog

from sstools.environments import EnvironmentRegistry
from sstools.superset import versions
from sstools.superset._session import SessionKeys, SupersetSession
from sstools.superset.errors import SupersetBadRequest, SupersetNotFound, public_text
from sstools.superset.models import (
    Column,
    DashboardDetail,
    DashboardSummary,
    Database,
    DatasetDetail,
    DatasetSummary,
    Page,
    RolePermissions,
    SqlResult,
)
from sstools.superset.search import matches
from sstools.texts import superset as texts

Item = TypeVar("Item")

logger = structlog.get_logger(__name__)


class SupersetClient(SupersetSession):
    """Talks to one Superset environment as its service account."""

    async def _search(
        self,
        resource: str,
        *,
        columns: list[str],
        searched: tuple[str, ...],
        build: Callable[[Mapping[str, Any]], Item],
        text: str | None,
        page: int,
        page_size: int,
        scan_limit: int,
    ) -> Page[Item]:
        """Rows whose ``searched`` fields hold every word of ``text``, matched on our side."""
        rows = await self.list_all(resource, columns=columns, limit=scan_limit)
        found = [build(row) for row in rows if matches(text, *(row.get(key) for key in searched))]
        return Page.of(found, page=page, page_size=page_size)

    async def _find(
        self, resource: str, column: Literal["id", "uuid"], value: int | str, columns: list[str]
    ) -> list[dict[str, Any]]:
        if column == "uuid":
            return await self.list_by_uuid(resource, [str(value)], columns=columns)
        query = {"columns": columns, "filters": [{"col": column, "opr": "eq", "value": value}]}
        rows: list[dict[str, Any]] = (await self.get_json(f"/api/v1/{resource}/", query=query)).get(
            "result"
        ) or []
        return rows

    async def list_by_uuid(
        self, resource: str, uuids: list[str], *, columns: list[str], limit: int = 10_000
    ) -> list[dict[str, Any]]:
        """The rows of ``resource`` with these UUIDs: filtered by Superset where its release
        may filter by UUID, else read whole and picked here (``columns`` must hold ``uuid``)."""
        if versions.filters_by_uuid(await self.release()):
            wanted = [{"col": "uuid", "opr": "in", "value": uuids}]
            return await self.list_all(resource, columns=columns, filters=wanted, limit=limit)
        chosen = set(uuids)
        rows = await self.list_all(resource, columns=columns)
        return [row for row in rows if str(row.get("uuid")) in chosen][:limit]

    # -- dashboards --------------------------------------------------------------------------

    def _dashboard_summary(self, raw: Mapping[str, Any]) -> DashboardSummary:
        return DashboardSummary.from_api(raw, superset_url=self.env.url)

    async def search_dashboards(
        self,
        text: str | None = None,
        *,
        page: int = 0,
        page_size: int = 20,
        scan_limit: int = 10_000,
    ) -> Page[DashboardSummary]:
        """Dashboards whose title or slug contains every word of ``text``, case-insensitively."""
        return await self._search(
            "dashboard",
            columns=["id", "dashboard_title", "slug", "published", "changed_on_utc"],
            searched=("dashboard_title", "slug"),
            build=self._dashboard_summary,
            text=text,
            page=page,
            page_size=page_size,
            scan_limit=scan_limit,
        )

    async def get_dashboard(self, dashboard_id: int) -> DashboardDetail:
        body, charts, datasets = await asyncio.gather(
            self.get_json(f"/api/v1/dashboard/{dashboard_id}"),
            self.get_json(f"/api/v1/dashboard/{dashboard_id}/charts"),
            self.get_json(f"/api/v1/dashboard/{dashboard_id}/datasets"),
        )
        return DashboardDetail.from_api(
            body["result"],
            charts=charts.get("result", []),
            datasets=datasets.get("result", []),
            superset_url=self.env.url,
        )

    async def dashboard_columns(self, dashboard_id: int) -> list[str]:
        """The column names of the dashboard's datasets: what its native filters may filter."""
        body = await self.get_json(f"/api/v1/dashboard/{dashboard_id}/datasets")
        names = {
            str(column["column_name"])
            for dataset in body.get("result") or []
            for column in dataset.get("columns") or []
            if column.get("column_name")
        }
        return sorted(names)

    async def find_dashboard(
        self, column: Literal["id", "uuid"], value: int | str
    ) -> tuple[str, DashboardSummary] | None:
        """The dashboard whose ``column`` equals ``value`` with its UUID, or None if there is none.

        The detail endpoint has no ``changed_on_utc``; one filtered list query has both.
        """
        columns = ["id", "uuid", "dashboard_title", "slug", "published", "changed_on_utc"]
        rows = await self._find("dashboard", column, value, columns)
        return (str(rows[0]["uuid"]), self._dashboard_summary(rows[0])) if rows else None

    async def export_dashboards(self, dashboard_ids: list[int]) -> bytes:
        """A ZIP bundle of the dashboards with their charts, datasets and databases."""
        response = await self.request("GET", "/api/v1/dashboard/export/", query=dashboard_ids)
        return response.content

    async def import_dashboards(
        self, bundle: bytes, *, overwrite: bool, passwords: Mapping[str, str] | None = None
    ) -> None:
        await self.request(
            "POST",
            "/api/v1/dashboard/import/",
            files={"formData": ("bundle.zip", bundle, "application/zip")},
            data={
                "overwrite": "true" if overwrite else "false",
                "passwords": json.dumps(dict(passwords or {})),
            },
        )

    async def import_assets(self, bundle: bytes) -> None:
        """Import datasets, charts and dashboards in one transaction, each overwritten.

        Sparse: whatever the bundle refers to and does not carry (a chart's dataset, a
        dashboard's charts, a dataset's database) is the environment's own, found by UUID.
        A database in the bundle would be overwritten: callers leave databases out.
        """
        await self.request(
            "POST",
            "/api/v1/assets/import/",
            files={"bundle": ("bundle.zip", bundle, "application/zip")},
            data={"sparse": "true"},
        )

    # -- datasets ----------------------------------------------------------------------------

    async def search_datasets(
        self,
        text: str | None = None,
        *,
        page: int = 0,
        page_size: int = 20,
        scan_limit: int = 10_000,
    ) -> Page[DatasetSummary]:
        """Datasets whose table name or schema contains every word of ``text``."""
        return await self._search(
            "dataset",
            columns=[
                "id",
                "table_name",
                "schema",
                "kind",
                "changed_on_utc",
                "database.id",
                "database.database_name",
            ],
            searched=("table_name", "schema"),
            build=DatasetSummary.from_api,
            text=text,
            page=page,
            page_size=page_size,
            scan_limit=scan_limit,
        )

    async def find_dataset(
        self, column: Literal["id", "uuid"], value: int | str
    ) -> tuple[str, DatasetSummary] | None:
        """The dataset whose ``column`` equals ``value`` with its UUID, or None if there is none."""
        columns = ["id", "uuid", "table_name", "schema", "kind", "changed_on_utc"]
        rows = await self._find("dataset", column, value, columns)
        return (str(rows[0]["uuid"]), DatasetSummary.from_api(rows[0])) if rows else None

    async def get_dataset(self, dataset_id: int) -> DatasetDetail:
        body, related = await asyncio.gather(
            self.get_json(f"/api/v1/dataset/{dataset_id}"),
            self.get_json(f"/api/v1/dataset/{dataset_id}/related_objects"),
        )
        return DatasetDetail.from_api(body["result"], related=related)

    async def create_dataset(
        self, database_id: int, table_name: str, *, schema: str | None, sql: str | None = None
    ) -> int:
        """A physical dataset over ``schema.table_name``, or a virtual one when ``sql`` is given;
        its new id."""
        body: dict[str, Any] = {"database": database_id, "table_name": table_name}
        if schema is not None:
            body["schema"] = schema
        if sql is not None:
            body["sql"] = sql
        created = await self.post_json("/api/v1/dataset/", body)
        return int(created["id"])

    async def chart_params(self, chart_id: int) -> dict[str, Any]:
        """A chart's saved form data (``params``), as Superset keeps it."""
        raw = (await self.get_json(f"/api/v1/chart/{chart_id}"))["result"].get("params")
        params = json.loads(raw) if isinstance(raw, str) and raw else {}
        return params if isinstance(params, dict) else {}

    # -- databases and SQL -------------------------------------------------------------------

    async def list_databases(self) -> list[Database]:
        rows = await self.list_all(
            "database",
            columns=["id", "database_name", "backend", "expose_in_sqllab", "allow_dml"],
        )
        return [Database.from_api(row) for row in rows]

    async def get_database(self, database_id: int) -> Database:
        raw = (await self.get_json(f"/api/v1/database/{database_id}"))["result"]
        return Database.from_api(raw, database_id=database_id)

    async def list_schemas(self, database_id: int) -> list[str]:
        body = await self.get_json(f"/api/v1/database/{database_id}/schemas/")
        return list(body.get("result", []))

    async def list_tables(self, database_id: int, schema: str) -> list[str]:
        # A schema the database lacks makes Superset fail with its SQL: say 404 ourselves.
        if schema not in await self.list_schemas(database_id):
            message = texts.NO_SCHEMA.format(schema=schema, database=database_id)
            raise SupersetNotFound(self.env.id, message)
        body = await self.get_json(
            f"/api/v1/database/{database_id}/tables/", query={"schema_name": schema}
        )
        return [row["value"] for row in body.get("result", [])]

    async def table_columns(self, database_id: int, schema: str, table: str) -> list[Column]:
        if table not in await self.list_tables(database_id, schema):
            message = texts.NO_TABLE.format(table=table, schema=schema, database=database_id)
            raise SupersetNotFound(self.env.id, message)
        body = await self.get_json(
            f"/api/v1/database/{database_id}/table_metadata/", name=table, schema=schema
        )
        return [Column.from_api(column) for column in body.get("columns", [])]

    async def execute_sql(
        self, database_id: int, sql: str, *, schema: str | None, row_limit: int
    ) -> SqlResult:
        """Run SQL synchronously in SQL Lab; at most ``row_limit`` rows come back."""
        try:
            body = await self.post_json(
                "/api/v1/sqllab/execute/",
                {
                    "database_id": database_id,
                    "sql": sql,
                    "schema": schema,
                    "runAsync": False,
                    "queryLimit": row_limit,
                    "client_id": None,
                },
            )
        except SupersetBadRequest as exc:
            raise SupersetBadRequest(self.env.id, exc.message, field="sql") from exc
        if body.get("status") not in (None, "success"):
            raw = str(body.get("error") or body.get("status"))
            logger.warning("superset_query_failed", env_id=self.env.id, message=raw)
            raise SupersetBadRequest(self.env.id, public_text(raw), field="sql")
        return SqlResult.from_api(body, row_limit=row_limit)

    # -- security ----------------------------------------------------------------------------

    async def roles_with_permissions(self) -> list[RolePermissions]:
        """Every role with its (permission, view menu) pairs (needs ``FAB_ADD_SECURITY_API``)."""
        if not versions.has_role_search(await self.release()):
            return await self._roles_one_by_one()
        roles, pairs = await asyncio.gather(
            self.list_all("security/roles/search", columns=["id", "name", "permission_ids"]),
            self.list_all(
                "security/permissions-resources",
                columns=["id", "permission.name", "view_menu.name"],
            ),
        )
        by_id = {
            pair["id"]: (pair["permission"]["name"], pair["view_menu"]["name"]) for pair in pairs
        }
        return [RolePermissions.from_api(role, by_id) for role in roles]

    async def _roles_one_by_one(self) -> list[RolePermissions]:
        """Before 6.0 no list gives a role's permissions: each role's are asked for on their own."""
        roles = await self.list_all("security/roles", columns=["id", "name"])

        async def of(role: Mapping[str, Any]) -> RolePermissions:
            body = await self.get_json(f"/api/v1/security/roles/{role['id']}/permissions/")
            pairs = [
                (str(pair["permission_name"]), str(pair["view_menu_name"]))
                for pair in body.get("result") or []
            ]
            return RolePermissions(role=str(role["name"]), permissions=pairs)

        return list(await asyncio.gather(*(of(role) for role in roles)))


class SupersetPool:
    """One client per configured environment, created on first use, closed with the app."""

    def __init__(
        self,
        environments: EnvironmentRegistry,
        *,
        timeout_s: float,
        transport: httpx.AsyncBaseTransport | None = None,
        keys: SessionKeys | None = None,
    ) -> None:
        self._environments = environments
        self._timeout_s = timeout_s
        self._transport = transport
        self._keys = keys
        self._clients: dict[str, SupersetClient] = {}

    def client(self, env_id: str) -> SupersetClient:
        if env_id not in self._clients:
            self._clients[env_id] = SupersetClient(
                self._environments[env_id],
                timeout_s=self._timeout_s,
                transport=self._transport,
                keys=self._keys,
            )
        return self._clients[env_id]

    async def aclose(self) -> None:
        await asyncio.gather(*(client.aclose() for client in self._clients.values()))
        self._clients.clear()
