"""An in-memory Superset behind an httpx transport, for unit tests of the client and the API.

It behaves like Superset on a SQLite metadata DB where that matters: the ``ct`` filter folds
ASCII case only, and mutations need the CSRF token of the session that fetched it.
"""

from __future__ import annotations

import io
import json
import threading
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs
from uuid import NAMESPACE_URL, uuid5

import anyio.to_thread
import httpx
import prison
import yaml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


def sqlite_like_contains(value: str, needle: str) -> bool:
    """SQLite's LIKE: case-insensitive for ASCII letters only."""

    def fold(text: str) -> str:
        return "".join(ch.lower() if ch.isascii() else ch for ch in text)

    return fold(needle) in fold(value)


ENERGY_DATASET = {
    "id": 1,
    "table_name": "energy",
    "schema": "main",
    "database": {"id": 1, "database_name": "demo", "backend": "sqlite"},
    "columns": [{"column_name": "region", "type": "TEXT"}],
    "metrics": [{"metric_name": "count"}],
    "owners": [],
}


# How long a held export waits at most for its test to let it go.
_HELD_S = 60.0
# The lists that answer from FakeSuperset.assets, and each kind's name column.
_ASSET_LISTS = {
    "/api/v1/chart/": "charts",
    "/api/v1/dataset/": "datasets",
    "/api/v1/database/": "databases",
}
_ASSET_NAMES = {"charts": "slice_name", "datasets": "table_name", "databases": "database_name"}


@dataclass
class FakeSuperset:
    username: str = "svc"
    password: str = "svc-password"  # noqa: S105 - the fake's service account
    dashboards: list[dict[str, Any]] = field(default_factory=list)
    calls: list[tuple[str, str]] = field(default_factory=list)
    expire_next_access_token: bool = False
    fail_with: int | None = None
    version: str | None = None  # what its static version_info.json says; None: it has none
    issued: int = 0
    csrf_sessions: dict[str, str] = field(default_factory=dict)
    executed_sql: list[str] = field(default_factory=list)
    chart_datasource: str = "1__table"  # "None__table": the chart's dataset was dropped
    # An export's charts, datasets and databases (kind folder → documents, each with a uuid),
    # in place of the demo ones; their lists (/api/v1/chart/, …) name them, ids from 1.
    assets: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # What every exported dashboard holds besides its uuid and title (its layout, its css).
    dashboard_fields: dict[str, Any] = field(default_factory=dict)
    # An import's answer: None accepts it; else Superset's 422 body refusing it.
    import_refusal: dict[str, Any] | None = None
    # Set: a whole-environment export (a backup's) waits until it is set again, so a test can
    # act while a task is in that step (an export begun sets ``exporting``).
    exports_held: threading.Event | None = None
    exporting: threading.Event = field(default_factory=threading.Event)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def asgi(self) -> Starlette:
        """The fake over real HTTP (serve it with a LiveServer): a task's steps make clients of
        their own, on their own event loops, that no test transport reaches."""

        async def answer(request: Request) -> Response:
            asked = httpx.Request(
                request.method,
                str(request.url),
                headers=request.headers.raw,
                content=await request.body(),
            )
            # In a thread: a held export must not stop this server answering anything else.
            given = await anyio.to_thread.run_sync(self.handle, asked)
            headers = {k: v for k, v in given.headers.items() if k.lower() != "content-length"}
            return Response(given.content, status_code=given.status_code, headers=headers)

        methods = ["GET", "POST", "PUT", "DELETE"]
        return Starlette(routes=[Route("/{path:path}", answer, methods=methods)])

    def _token(self) -> str:
        self.issued += 1
        return f"access-{self.issued}"

    def handle(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        self.calls.append((request.method, path))
        if self.fail_with is not None:
            return httpx.Response(self.fail_with, json={"message": "boom"})
        if path == "/static/version_info.json" and self.version is not None:
            return httpx.Response(200, json={"GIT_SHA": "", "version": self.version})
        if path == "/api/v1/security/login":
            body = json.loads(request.content)
            if (body["username"], body["password"]) != (self.username, self.password):
                return httpx.Response(401, json={"message": "Not authorized"})
            return httpx.Response(
                200, json={"access_token": self._token(), "refresh_token": "refresh-1"}
            )
        if path == "/api/v1/security/refresh":
            return httpx.Response(200, json={"access_token": self._token()})
        auth = request.headers.get("Authorization", "")
        if not auth.startswith("Bearer access-"):
            return httpx.Response(401, json={"msg": "Missing Authorization Header"})
        if self.expire_next_access_token:
            self.expire_next_access_token = False
            return httpx.Response(401, json={"msg": "Token has expired"})
        if path == "/api/v1/security/csrf_token/":
            session = f"session-{len(self.csrf_sessions) + 1}"
            token = f"csrf-{session}"
            self.csrf_sessions[session] = token
            return httpx.Response(
                200, json={"result": token}, headers={"Set-Cookie": f"session={session}; Path=/"}
            )
        if request.method not in ("GET", "HEAD"):
            session = request.headers.get("Cookie", "").removeprefix("session=")
            if request.headers.get("X-CSRFToken") != self.csrf_sessions.get(session):
                return httpx.Response(
                    400, json={"errors": [{"message": "The CSRF token is missing."}]}
                )
        if path == "/api/v1/dashboard/" and request.method == "GET":
            return self._list_dashboards(request)
        if path == "/api/v1/dashboard/" and request.method == "POST":
            body = json.loads(request.content)
            new = {"id": len(self.dashboards) + 1, "published": False, **body}
            self.dashboards.append(new)
            return httpx.Response(201, json={"id": new["id"], "result": body})
        if path == "/api/v1/dashboard/export/" and request.method == "GET":
            return self._export(request)
        if path == "/api/v1/assets/export/" and request.method == "GET":
            self.exporting.set()
            if self.exports_held is not None:
                self.exports_held.wait(_HELD_S)
            return self._export(request, [one["id"] for one in self.dashboards])
        if path.endswith("/import/") and request.method == "POST":
            if self.import_refusal is not None:
                return httpx.Response(422, json=self.import_refusal)
            return httpx.Response(200, json={"message": "OK"})
        if path.startswith("/api/v1/dashboard/") and request.method == "GET":
            return self._dashboard_detail(path)
        demo = {
            "id": 1,
            "database_name": "demo",
            "backend": "sqlite",
            "expose_in_sqllab": True,
            "allow_dml": True,
        }
        if path in _ASSET_LISTS and request.method == "GET" and self.assets:
            return self._list_assets(_ASSET_LISTS[path])
        if path == "/api/v1/database/" and request.method == "GET":
            return httpx.Response(200, json={"count": 1, "result": [demo]})
        if path.startswith("/api/v1/database/") and path.endswith("/schemas/"):
            return httpx.Response(200, json={"result": ["main"]})
        if path == "/api/v1/database/1" and request.method == "GET":
            return httpx.Response(200, json={"id": 1, "result": demo})
        if path == "/api/v1/dataset/1" and request.method == "GET":
            return httpx.Response(200, json={"result": ENERGY_DATASET})
        if path == "/api/v1/dataset/1/related_objects":
            chart = {"id": 1, "slice_name": "Потребление", "viz_type": "bar"}
            return httpx.Response(
                200,
                json={"charts": {"result": [chart]}, "dashboards": {"result": []}},
            )
        if path == "/api/v1/sqllab/execute/":
            self.executed_sql.append(json.loads(request.content)["sql"])
            return httpx.Response(200, json={"status": "success", "data": [], "columns": []})
        return httpx.Response(404, json={"message": f"fake has no {path}"})

    def _dashboard_detail(self, path: str) -> httpx.Response:
        parts = path.removeprefix("/api/v1/dashboard/").strip("/").split("/")
        found = [d for d in self.dashboards if str(d["id"]) == parts[0]]
        if not found:
            return httpx.Response(404, json={"message": "Not found"})
        dashboard = found[0]
        if parts[1:] == ["charts"]:
            form_data = {"datasource": self.chart_datasource, "viz_type": "bar"}
            chart = {"id": 1, "slice_name": "Потребление", "form_data": form_data}
            return httpx.Response(200, json={"result": [chart]})
        if parts[1:] == ["datasets"]:
            dataset = {"id": 1, "table_name": "energy", "database": {"id": 1}}
            return httpx.Response(200, json={"result": [dataset]})
        owner = {"id": 1, "first_name": "Ирина", "last_name": "Петрова"}
        return httpx.Response(
            200,
            json={"result": {**dashboard, "owners": [owner], "changed_on": "2026-11-01T10:00:00"}},
        )

    def _export(self, request: httpx.Request, ids: list[int] | None = None) -> httpx.Response:
        """Superset's export bundle: a stamped folder, metadata.yaml, one YAML per object."""
        if ids is None:
            ids = prison.loads(parse_qs(request.url.query.decode())["q"][0])
        found = [d for d in self.dashboards if d["id"] in ids]
        if len(found) != len(ids):
            return httpx.Response(404, json={"message": "Not found"})
        files: dict[str, dict[str, Any]] = {
            "metadata.yaml": {"version": "1.0.0", "type": "Dashboard", "timestamp": self.issued},
        }
        if self.assets:
            for kind, documents in self.assets.items():
                for number, asset in enumerate(documents, 1):
                    files[f"{kind}/{kind}_{number}.yaml"] = asset
        else:
            files["databases/demo.yaml"] = {
                "uuid": str(uuid5(NAMESPACE_URL, "db")),
                "password": "x",
            }
            files["datasets/demo/energy.yaml"] = {
                "uuid": str(uuid5(NAMESPACE_URL, "ds")),
                "schema": "main",
            }
        for dashboard in found:
            title = dashboard["dashboard_title"]
            document = {
                "uuid": str(uuid5(NAMESPACE_URL, str(dashboard["id"]))),
                "dashboard_title": title,
                **self.dashboard_fields,
            }
            files[f"dashboards/{title}_{dashboard['id']}.yaml"] = document
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, content in files.items():
                archive.writestr(f"dashboard_export_{self.issued}/{name}", yaml.safe_dump(content))
        return httpx.Response(200, content=buffer.getvalue())

    def _list_assets(self, kind: str) -> httpx.Response:
        """A list of :attr:`assets` of one kind folder: id, uuid, name, no ``changed_on``."""
        name = _ASSET_NAMES[kind]
        rows = [
            {"id": number, "uuid": asset["uuid"], name: asset.get(name), "changed_on_utc": None}
            for number, asset in enumerate(self.assets.get(kind, []), 1)
        ]
        return httpx.Response(200, json={"count": len(rows), "result": rows})

    def _list_dashboards(self, request: httpx.Request) -> httpx.Response:
        raw_q = parse_qs(request.url.query.decode()).get("q", ["()"])[0]
        query = prison.loads(raw_q)
        # The same UUID the export gives each dashboard.
        rows = [{"uuid": str(uuid5(NAMESPACE_URL, str(d["id"]))), **d} for d in self.dashboards]
        for flt in query.get("filters", []):
            if flt["opr"] == "ct":
                rows = [r for r in rows if sqlite_like_contains(r[flt["col"]], flt["value"])]
            if flt["opr"] == "eq":
                rows = [r for r in rows if r[flt["col"]] == flt["value"]]
        page, size = query.get("page", 0), query.get("page_size", 25)
        return httpx.Response(
            200,
            json={"count": len(rows), "result": rows[page * size : (page + 1) * size]},
        )


class RoutingTransport(httpx.AsyncBaseTransport):
    """The fake answers for superset.test (and ``others`` for their hosts: a second Superset);
    everything else goes over the real network stack."""

    def __init__(
        self, fake: FakeSuperset, others: Mapping[str, FakeSuperset] | None = None
    ) -> None:
        self._fakes = {"superset.test": fake.transport()}
        self._fakes |= {host: one.transport() for host, one in (others or {}).items()}
        self._real = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        fake = self._fakes.get(request.url.host)
        if fake is not None:
            return await fake.handle_async_request(request)
        return await self._real.handle_async_request(request)

    async def aclose(self) -> None:
        await self._real.aclose()
