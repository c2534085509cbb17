"""The Superset REST client: service-account login and refresh, CSRF for mutations, rison queries.

One :class:`SupersetClient` per environment keeps its tokens and session cookie; the
:class:`SupersetPool` owns one per configured environment for the life of the app.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

import httpx
import prison

from sstools.environments import Environment, EnvironmentRegistry
from sstools.superset.errors import (
    SupersetAuthError,
    SupersetBadRequest,
    SupersetError,
    SupersetForbidden,
    SupersetNotFound,
    SupersetUnavailable,
)
from sstools.superset.models import (
    ChartRef,
    Column,
    DashboardDetail,
    DashboardRef,
    DashboardSummary,
    Database,
    DatasetDetail,
    DatasetRef,
    DatasetSummary,
    Owner,
    Page,
    RolePermissions,
    SqlResult,
)
from sstools.superset.search import matches

_PAGE_SIZE = 100  # Superset's largest page


def _error_message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:300] or response.reason_phrase
    if isinstance(body, dict):
        if isinstance(body.get("errors"), list) and body["errors"]:
            return "; ".join(str(err.get("message", err)) for err in body["errors"])
        for key in ("message", "msg", "error"):
            if key in body:
                return json.dumps(body[key], ensure_ascii=False)[:500]
    return str(body)[:500]


def _is_query_error(response: httpx.Response) -> bool:
    """Superset answers a failing query with a 500 whose typed error blames the query."""
    try:
        errors = response.json().get("errors") or []
    except (ValueError, AttributeError):
        return False
    types = [str(error.get("error_type", "")) for error in errors if isinstance(error, dict)]
    return bool(types) and not any(
        kind.startswith("CONNECTION_") or kind in ("GENERIC_BACKEND_ERROR", "") for kind in types
    )


def _owner(raw: Mapping[str, Any]) -> Owner:
    name = " ".join(part for part in (raw.get("first_name"), raw.get("last_name")) if part)
    return Owner(id=raw.get("id"), name=name or str(raw.get("username") or "?"))


def _chart_dataset_id(raw: Mapping[str, Any]) -> int | None:
    """``form_data.datasource`` is ``"12__table"``; an orphaned chart has ``"None__table"``."""
    datasource = str((raw.get("form_data") or {}).get("datasource") or "")
    head = datasource.split("__", 1)[0]
    return int(head) if head.isascii() and head.isdigit() else None


class SupersetClient:
    """Talks to one Superset environment as its service account."""

    def __init__(
        self,
        env: Environment,
        *,
        timeout_s: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.env = env
        self._http = httpx.AsyncClient(
            base_url=env.url,
            timeout=timeout_s,
            transport=transport,
            headers={"Accept": "application/json"},
        )
        self._access_token: str | None = None
        self._refresh_token: str | None = None
        self._csrf_token: str | None = None
        self._auth_lock = asyncio.Lock()

    async def aclose(self) -> None:
        await self._http.aclose()

    # -- transport -------------------------------------------------------------------------

    async def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            return await self._http.request(method, path, **kwargs)
        except httpx.TimeoutException as exc:
            raise SupersetUnavailable(self.env.id, f"timed out ({path})") from exc
        except httpx.TransportError as exc:
            raise SupersetUnavailable(self.env.id, f"unreachable at {self.env.url}: {exc}") from exc

    def _raise_for(self, response: httpx.Response) -> None:
        status = response.status_code
        if status < 400:
            return
        message = _error_message(response)
        if status == 401:
            raise SupersetAuthError(self.env.id, f"service account rejected: {message}")
        if status == 403:
            raise SupersetForbidden(self.env.id, message)
        if status == 404:
            raise SupersetNotFound(self.env.id, message)
        if status in (400, 409, 422):
            raise SupersetBadRequest(self.env.id, message)
        if status >= 500 and _is_query_error(response):
            raise SupersetBadRequest(self.env.id, message)
        if status >= 500:
            raise SupersetUnavailable(self.env.id, f"HTTP {status}: {message}")
        raise SupersetError(self.env.id, f"HTTP {status}: {message}")

    async def _login(self) -> None:
        response = await self._send(
            "POST",
            "/api/v1/security/login",
            json={
                "username": self.env.username,
                "password": self.env.password.get_secret_value(),
                "provider": "db",
                "refresh": True,
            },
        )
        if response.status_code in (400, 401):
            raise SupersetAuthError(self.env.id, "service-account login refused; check its secret")
        self._raise_for(response)
        body = response.json()
        self._access_token = body["access_token"]
        self._refresh_token = body.get("refresh_token")
        self._csrf_token = None

    async def _renew(self, stale_token: str | None) -> None:
        """Refresh the access token (or log in again); only once for concurrent callers."""
        async with self._auth_lock:
            if self._access_token != stale_token:
                return  # another request renewed it meanwhile
            if self._refresh_token:
                response = await self._send(
                    "POST",
                    "/api/v1/security/refresh",
                    headers={"Authorization": f"Bearer {self._refresh_token}"},
                )
                if response.status_code == 200:
                    self._access_token = response.json()["access_token"]
                    return
            await self._login()

    async def _csrf(self) -> str:
        if self._csrf_token is None:
            response = await self._send(
                "GET",
                "/api/v1/security/csrf_token/",
                headers={"Authorization": f"Bearer {self._access_token}"},
            )
            self._raise_for(response)
            self._csrf_token = response.json()["result"]
        return self._csrf_token

    async def request(
        self,
        method: str,
        path: str,
        *,
        query: Any = None,
        params: Mapping[str, str] | None = None,
        json_body: Any = None,
        files: Any = None,
        data: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """Send an authenticated request; renew an expired token and a stale CSRF token once."""
        if self._access_token is None:
            await self._renew(None)
        mutating = method.upper() not in ("GET", "HEAD", "OPTIONS")
        all_params = dict(params or {})
        if query is not None:
            all_params["q"] = prison.dumps(query)  # httpx percent-encodes it, non-ASCII included
        for attempt in range(2):
            token = self._access_token
            headers = {"Authorization": f"Bearer {token}"}
            if mutating:
                headers["X-CSRFToken"] = await self._csrf()
                headers["Referer"] = self.env.url
            response = await self._send(
                method,
                path,
                params=all_params or None,
                json=json_body,
                files=files,
                data=data,
                headers=headers,
            )
            # Both are refusals before Superset acted, so sending again cannot do anything twice.
            if attempt == 0 and response.status_code == 401:
                await self._renew(token)
                continue
            if attempt == 0 and response.status_code == 400 and "CSRF" in response.text:
                self._csrf_token = None
                continue
            break
        self._raise_for(response)
        return response

    async def get_json(self, path: str, *, query: Any = None, **params: str) -> Any:
        return (await self.request("GET", path, query=query, params=params)).json()

    async def post_json(self, path: str, body: Any) -> Any:
        return (await self.request("POST", path, json_body=body)).json()

    async def put_json(self, path: str, body: Any) -> Any:
        return (await self.request("PUT", path, json_body=body)).json()

    async def delete(self, path: str) -> None:
        await self.request("DELETE", path)

    async def list_all(
        self,
        resource: str,
        *,
        columns: list[str],
        filters: list[dict[str, Any]] | None = None,
        limit: int = 10_000,
    ) -> list[dict[str, Any]]:
        """Every row of a list endpoint (``/api/v1/<resource>/``), page by page, up to ``limit``."""
        rows: dict[Any, dict[str, Any]] = {}
        page = 0
        while len(rows) < limit:
            # Not every list may be ordered by id, so rows are keyed by id against page overlap.
            query: dict[str, Any] = {"columns": columns, "page": page, "page_size": _PAGE_SIZE}
            if filters:
                query["filters"] = filters
            body = await self.get_json(f"/api/v1/{resource}/", query=query)
            batch = body.get("result", [])
            for row in batch:
                rows[row.get("id", len(rows))] = row
            if len(batch) < _PAGE_SIZE or (page + 1) * _PAGE_SIZE >= int(body.get("count", 0)):
                break
            page += 1
        return sorted(rows.values(), key=lambda row: row.get("id", 0))[:limit]

    # -- dashboards --------------------------------------------------------------------------

    def _dashboard_summary(self, raw: Mapping[str, Any]) -> DashboardSummary:
        return DashboardSummary(
            id=raw["id"],
            title=raw.get("dashboard_title") or "",
            slug=raw.get("slug"),
            published=bool(raw.get("published")),
            changed_on=raw.get("changed_on_utc") or raw.get("changed_on"),
            url=f"{self.env.url}/superset/dashboard/{raw['id']}/",
        )

    async def search_dashboards(
        self,
        text: str | None = None,
        *,
        page: int = 0,
        page_size: int = 20,
        scan_limit: int = 10_000,
    ) -> Page[DashboardSummary]:
        """Dashboards whose title or slug contains every word of ``text``, case-insensitively."""
        rows = await self.list_all(
            "dashboard",
            columns=["id", "dashboard_title", "slug", "published", "changed_on_utc"],
            limit=scan_limit,
        )
        found = [
            self._dashboard_summary(row)
            for row in rows
            if matches(text, row.get("dashboard_title"), row.get("slug"))
        ]
        start = page * page_size
        return Page(
            items=found[start : start + page_size], total=len(found), page=page, page_size=page_size
        )

    async def get_dashboard(self, dashboard_id: int) -> DashboardDetail:
        body, charts, datasets = await asyncio.gather(
            self.get_json(f"/api/v1/dashboard/{dashboard_id}"),
            self.get_json(f"/api/v1/dashboard/{dashboard_id}/charts"),
            self.get_json(f"/api/v1/dashboard/{dashboard_id}/datasets"),
        )
        raw = body["result"]
        metadata = raw.get("json_metadata")
        return DashboardDetail(
            **self._dashboard_summary(raw).model_dump(),
            owners=[_owner(owner) for owner in raw.get("owners") or []],
            roles=[role["name"] for role in raw.get("roles") or []],
            charts=[
                ChartRef(
                    id=chart["id"],
                    name=chart.get("slice_name") or "",
                    viz_type=(chart.get("form_data") or {}).get("viz_type"),
                    dataset_id=_chart_dataset_id(chart),
                )
                for chart in charts.get("result", [])
            ],
            datasets=[
                DatasetRef(
                    id=dataset["id"],
                    name=dataset.get("table_name") or dataset.get("datasource_name") or "",
                    schema=dataset.get("schema"),
                    database_id=(dataset.get("database") or {}).get("id"),
                    database_name=(dataset.get("database") or {}).get("database_name"),
                )
                for dataset in datasets.get("result", [])
            ],
            css=raw.get("css"),
            json_metadata=json.loads(metadata) if metadata else None,
        )

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

    # -- datasets ----------------------------------------------------------------------------

    async def search_datasets(
        self,
        text: str | None = None,
        *,
        page: int = 0,
        page_size: int = 20,
        scan_limit: int = 10_000,
    ) -> Page[DatasetSummary]:
        rows = await self.list_all(
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
            limit=scan_limit,
        )
        found = [
            DatasetSummary(
                id=row["id"],
                name=row.get("table_name") or "",
                schema=row.get("schema"),
                database_id=(row.get("database") or {}).get("id"),
                database_name=(row.get("database") or {}).get("database_name"),
                kind=row.get("kind"),
                changed_on=row.get("changed_on_utc"),
            )
            for row in rows
            if matches(text, row.get("table_name"), row.get("schema"))
        ]
        start = page * page_size
        return Page(
            items=found[start : start + page_size], total=len(found), page=page, page_size=page_size
        )

    async def get_dataset(self, dataset_id: int) -> DatasetDetail:
        body, related = await asyncio.gather(
            self.get_json(f"/api/v1/dataset/{dataset_id}"),
            self.get_json(f"/api/v1/dataset/{dataset_id}/related_objects"),
        )
        raw = body["result"]
        database = raw.get("database") or {}
        return DatasetDetail(
            id=raw["id"],
            name=raw.get("table_name") or "",
            schema=raw.get("schema"),
            database_id=database.get("id"),
            database_name=database.get("database_name"),
            database_backend=database.get("backend"),
            kind=raw.get("kind"),
            changed_on=raw.get("changed_on_utc") or raw.get("changed_on"),
            sql=raw.get("sql"),
            columns=[
                Column(name=col["column_name"], type=col.get("type"))
                for col in raw.get("columns") or []
            ],
            metrics=[metric["metric_name"] for metric in raw.get("metrics") or []],
            owners=[_owner(owner) for owner in raw.get("owners") or []],
            charts=[
                ChartRef(
                    id=chart["id"],
                    name=chart.get("slice_name") or "",
                    dataset_id=raw["id"],
                    viz_type=chart.get("viz_type"),
                )
                for chart in related.get("charts", {}).get("result", [])
            ],
            dashboards=[
                DashboardRef(id=dash["id"], title=dash.get("title") or "")
                for dash in related.get("dashboards", {}).get("result", [])
            ],
        )

    # -- databases and SQL -------------------------------------------------------------------

    async def list_databases(self) -> list[Database]:
        rows = await self.list_all(
            "database",
            columns=["id", "database_name", "backend", "expose_in_sqllab", "allow_dml"],
        )
        return [
            Database(
                id=row["id"],
                name=row["database_name"],
                backend=row.get("backend"),
                expose_in_sqllab=row.get("expose_in_sqllab"),
                allow_dml=row.get("allow_dml"),
            )
            for row in rows
        ]

    async def get_database(self, database_id: int) -> Database:
        raw = (await self.get_json(f"/api/v1/database/{database_id}"))["result"]
        return Database(
            id=raw.get("id", database_id),
            name=raw["database_name"],
            backend=raw.get("backend"),
            expose_in_sqllab=raw.get("expose_in_sqllab"),
            allow_dml=raw.get("allow_dml"),
        )

    async def list_schemas(self, database_id: int) -> list[str]:
        body = await self.get_json(f"/api/v1/database/{database_id}/schemas/")
        return list(body.get("result", []))

    async def list_tables(self, database_id: int, schema: str) -> list[str]:
        body = await self.get_json(
            f"/api/v1/database/{database_id}/tables/", query={"schema_name": schema}
        )
        return [row["value"] for row in body.get("result", [])]

    async def table_columns(self, database_id: int, schema: str, table: str) -> list[Column]:
        body = await self.get_json(
            f"/api/v1/database/{database_id}/table_metadata/", name=table, schema=schema
        )
        return [Column(name=col["name"], type=col.get("type")) for col in body.get("columns", [])]

    async def execute_sql(
        self, database_id: int, sql: str, *, schema: str | None, row_limit: int
    ) -> SqlResult:
        """Run SQL synchronously in SQL Lab; at most ``row_limit`` rows come back."""
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
        if body.get("status") not in (None, "success"):
            raise SupersetBadRequest(self.env.id, str(body.get("error") or body.get("status")))
        rows = list(body.get("data") or [])
        return SqlResult(
            columns=[col.get("column_name") or col.get("name") for col in body.get("columns", [])],
            rows=rows[:row_limit],
            row_count=len(rows[:row_limit]),
            limited=len(rows) >= row_limit,
        )

    # -- security ----------------------------------------------------------------------------

    async def roles_with_permissions(self) -> list[RolePermissions]:
        """Every role with its (permission, view menu) pairs (needs ``FAB_ADD_SECURITY_API``)."""
        roles_body, pairs = await asyncio.gather(
            self.get_json("/api/v1/security/roles/search/", query={"page_size": _PAGE_SIZE}),
            self.list_all(
                "security/permissions-resources",
                columns=["id", "permission.name", "view_menu.name"],
            ),
        )
        by_id = {
            pair["id"]: (pair["permission"]["name"], pair["view_menu"]["name"]) for pair in pairs
        }
        return [
            RolePermissions(
                role=role["name"],
                permissions=[by_id[pid] for pid in role.get("permission_ids", []) if pid in by_id],
            )
            for role in roles_body.get("result", [])
        ]

    async def health(self) -> bool:
        """Whether Superset answers its health check (no login needed)."""
        try:
            response = await self._http.get("/health", timeout=3.0)
        except httpx.HTTPError:
            return False
        return response.status_code == 200


class SupersetPool:
    """One client per configured environment, created on first use, closed with the app."""

    def __init__(
        self,
        environments: EnvironmentRegistry,
        *,
        timeout_s: float,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._environments = environments
        self._timeout_s = timeout_s
        self._transport = transport
        self._clients: dict[str, SupersetClient] = {}

    def client(self, env_id: str) -> SupersetClient:
        if env_id not in self._clients:
            self._clients[env_id] = SupersetClient(
                self._environments[env_id], timeout_s=self._timeout_s, transport=self._transport
            )
        return self._clients[env_id]

    async def aclose(self) -> None:
        await asyncio.gather(*(client.aclose() for client in self._clients.values()))
        self._clients.clear()
