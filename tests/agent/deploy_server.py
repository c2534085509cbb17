"""A stand-in for the domain API's plan and apply, for agent tests that need a plan per request:
a plan names the requested dashboards and the target, its digest is of the request, and the
apply refuses a digest that is not the plan's (409, as the real one does when the target moved).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sstools.testing import LiveServer

NAMES = {10: "Отчёт", 11: "Продажи", 12: "Склад"}


class DeployServer:
    """The domain API's plan and apply, as far as these tests need: a plan names the requested
    dashboards and the target, its digest is of the request; every request is kept."""

    def __init__(self) -> None:
        self.plans: list[dict[str, Any]] = []
        self.applies: list[dict[str, Any]] = []
        # The dashboards' one source database, and the target's connections (uuid -> name):
        # matched by name unless the request maps it elsewhere.
        self.source_database = {"uuid": "db-source", "name": "Демо-данные"}
        self.target_databases = {"db-target": "Демо-данные"}
        self.in_sync: set[str] = set()  # targets that already have the dashboards as they are
        self.revision = 0  # bumped: the target moved, every plan gets another digest

    def _databases(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        source = self.source_database
        mapping = body.get("database_mapping") or {}
        wanted = mapping.get(source["uuid"], mapping.get(source["name"]))
        by_name = {name: uuid for uuid, name in self.target_databases.items()}
        if wanted is not None:
            known = wanted if wanted in self.target_databases else by_name.get(wanted)
            target, matched = known, "mapping"
        else:
            target, matched = by_name.get(source["name"]), "name"
        return [
            {
                "source_uuid": source["uuid"],
                "source_name": source["name"],
                "target_uuid": target,
                "target_name": self.target_databases.get(target or ""),
                "matched_by": matched if target else None,
            }
        ]

    def plan_of(self, body: dict[str, Any]) -> dict[str, Any]:
        keys = ("dashboard_ids", "target_env_id", "database_mapping")
        request = {key: body.get(key) for key in keys} | {"revision": self.revision}
        digest = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()
        databases = self._databases(body)
        dashboards = [
            {
                "kind": "dashboard",
                "uuid": f"u{one}",
                "name": NAMES[one],
                "action": "unchanged" if body["target_env_id"] in self.in_sync else "update",
                "fields": [] if body["target_env_id"] in self.in_sync else ["css"],
            }
            for one in body["dashboard_ids"]
        ]
        return {
            "source": {"env_id": "ss-dev"},
            "target_env_id": body["target_env_id"],
            "target_stage": "prod" if body["target_env_id"] == "prod" else "staging",
            "dashboards": dashboards,
            "objects": dashboards,
            "dashboards_changed": 0 if body["target_env_id"] in self.in_sync else len(dashboards),
            "databases": databases,
            "target_databases": [
                {"uuid": uuid, "name": name} for uuid, name in self.target_databases.items()
            ],
            "applicable": all(row["target_uuid"] for row in databases),
            "summary": "",
            "digest": digest,
        }

    async def plan(self, request: Request) -> Response:
        body = await request.json()
        self.plans.append(body)
        return JSONResponse(self.plan_of(body))

    async def apply(self, request: Request) -> Response:
        body = await request.json()
        self.applies.append(body)
        if body.get("digest") != self.plan_of(body)["digest"]:
            return JSONResponse({"detail": "цель изменилась"}, status_code=409)
        task = {"id": "a" * 32, "kind": "migration", "status": "queued", "env_id": "staging"}
        return JSONResponse(task, status_code=202)


@pytest.fixture
def deploys() -> Iterator[tuple[DeployServer, str]]:
    server = DeployServer()
    app = Starlette(
        routes=[
            Route("/api/deploy/plan", server.plan, methods=["POST"]),
            Route("/api/migrations", server.apply, methods=["POST"]),
            Route("/api/deploy", server.apply, methods=["POST"]),
        ]
    )
    with LiveServer(app) as live:
        yield server, live.url
