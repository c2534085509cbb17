"""A dashboard's timeline on the real sandbox: a commit and a backup appear as points, and
restoring from a git point, a deploy's snapshot and a backup point each bring staging's export
of the dashboard back to that point's, through the usual plan → digest → task path.

Staging is put back exactly afterwards: every file of its export, then the dashboard's raw CSS
(an import writes "" where there was null).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import httpx
import yaml

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.domain.deploy import import_bundle, portable
from sstools.superset import SupersetClient
from tests.conftest import AuthHeaders, app_client
from tests.integration.deploy_support import (
    Superset,
    _importable,
    delete_by_uuid,
    export_all,
    wait_for_task,
)

REPORT = "Отчёт по энергопотреблению"
ENV = "staging"
POINT_CSS = "/* timeline: the version to come back to */"
EDITED_CSS = "/* timeline: edited after the point */"


async def _report_id(staging: SupersetClient) -> int:
    page = await staging.search_dashboards(REPORT)
    return next(item.id for item in page.items if item.title == REPORT)


async def _css(staging: SupersetClient, dashboard_id: int) -> str | None:
    css: str | None = (await staging.get_json(f"/api/v1/dashboard/{dashboard_id}"))["result"].get(
        "css"
    )
    return css


async def _set_css(staging: SupersetClient, dashboard_id: int, css: str | None) -> None:
    await staging.put_json(f"/api/v1/dashboard/{dashboard_id}", {"css": css})


@asynccontextmanager
async def staging_put_back(superset: Superset) -> AsyncIterator[tuple[SupersetClient, int]]:
    staging = superset(ENV)
    report = await _report_id(staging)
    files, dashboards, charts = await export_all(staging)
    css = await _css(staging, report)
    try:
        yield staging, report
    finally:
        now = await export_all(staging)
        await delete_by_uuid(staging, "dashboard", now[1] - dashboards)
        await delete_by_uuid(staging, "chart", now[2] - charts)
        changed = {path for path, content in files.items() if now[0].get(path) != content}
        if changed:
            await import_bundle(staging, _importable(files, changed))
        await _set_css(staging, report, css)
        assert await _css(staging, report) == css


async def _timeline(
    api: httpx.AsyncClient, auth: AuthHeaders, dashboard_id: int
) -> tuple[dict[str, Any], float]:
    began = time.perf_counter()
    response = await api.get(
        f"/api/dashboards/{dashboard_id}/timeline",
        params={"env_id": ENV},
        headers=auth(Role.analyst),
    )
    seconds = time.perf_counter() - began
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body, seconds


async def _dashboard_export(staging: SupersetClient, uuid: str) -> dict[str, Any]:
    """The dashboard's own file in staging's export, without per-environment ids."""
    files, _, _ = await export_all(staging)
    return dict(portable("dashboards", yaml.safe_load(files[f"dashboards/{uuid}.yaml"])))


async def _deploy_from(
    api: httpx.AsyncClient, auth: AuthHeaders, dashboard_id: int, commit: str
) -> dict[str, Any]:
    """Plan the point's commit into staging, apply it with the plan's digest, wait for it."""
    body = {
        "dashboard_ids": [dashboard_id],
        "source": {"env_id": ENV, "git_ref": commit},
        "target_env_id": ENV,
    }
    planned = await api.post("/api/deploy/plan", json=body, headers=auth(Role.engineer))
    assert planned.status_code == 200, planned.text
    plan = planned.json()
    assert plan["dashboards_changed"] == 1
    assert plan["dashboards"][0]["fields"] == ["css"]
    started = await api.post(
        "/api/deploy", json={**body, "digest": plan["digest"]}, headers=auth(Role.engineer)
    )
    assert started.status_code == 202, started.text
    task = await wait_for_task(api, auth, started.json()["id"])
    assert task["status"] == "succeeded", task
    return task


async def test_a_git_point_and_a_deploys_snapshot_each_bring_the_dashboard_back(
    settings: Settings, auth: AuthHeaders, superset: Superset
) -> None:
    # Staging snapshots before a deploy here, as prod does: the deploy below leaves a snapshot.
    own = settings.model_copy(update={"snapshot_stages": ["staging", "prod"]})
    async with staging_put_back(superset) as (staging, report), app_client(own) as api:
        await _set_css(staging, report, POINT_CSS)
        committed = await api.post(
            "/api/git/commits",
            json={"env_id": ENV, "dashboard_ids": [report], "message": "timeline point"},
            headers=auth(Role.engineer),
        )
        assert committed.status_code == 200, committed.text
        commit = committed.json()["commit"]["id"]
        timeline, seconds = await _timeline(api, auth, report)
        uuid = timeline["uuid"]
        point_export = await _dashboard_export(staging, uuid)

        git = [point for point in timeline["points"] if point["kind"] == "git"]
        assert git[0]["restore"] == {"git_commit": commit, "backup_id": None}
        assert git[0]["who"] == "engineer"
        assert git[0]["label"] == "коммит в main: timeline point"
        live = [point for point in timeline["points"] if point["kind"] == "live"]
        assert ENV in {point["env_id"] for point in live}
        # Compared as instants: a git commit's time has whole seconds, a snapshot's has more.
        whens = [datetime.fromisoformat(point["when"]) for point in timeline["points"]]
        assert whens == sorted(whens, reverse=True)

        await _set_css(staging, report, EDITED_CSS)
        task = await _deploy_from(api, auth, report, commit)
        assert await _css(staging, report) == POINT_CSS
        assert await _dashboard_export(staging, uuid) == point_export

        # That deploy overwrote the edit: its snapshot holds the edit and is a point too.
        after, again = await _timeline(api, auth, report)
        snapshot = next(p for p in after["points"] if p["kind"] == "snapshot")
        assert snapshot["task_id"] == task["id"]
        assert snapshot["env_id"] == ENV
        assert snapshot["restore"]["git_commit"] == task["result"]["snapshot"]["commit"]
        await _deploy_from(api, auth, report, snapshot["restore"]["git_commit"])
        assert await _css(staging, report) == EDITED_CSS
    print(f"\ntimeline: first {seconds:.2f} s, again ({len(after['points'])} points) {again:.2f} s")


async def test_a_backup_point_brings_the_dashboard_back(
    client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset
) -> None:
    async with staging_put_back(superset) as (staging, report):
        await _set_css(staging, report, POINT_CSS)
        started = await client.post("/api/backups", json={"env_id": ENV}, headers=auth(Role.admin))
        assert started.status_code == 202, started.text
        made = await wait_for_task(client, auth, started.json()["id"])
        assert made["status"] == "succeeded", made
        backup_id = made["result"]["backup_id"]
        timeline, _ = await _timeline(client, auth, report)
        point_export = await _dashboard_export(staging, timeline["uuid"])
        backups = [p for p in timeline["points"] if p["kind"] == "backup"]
        assert backups[0]["restore"] == {"git_commit": None, "backup_id": backup_id}
        assert backups[0]["who"] == "admin"
        assert backups[0]["label"] == "резервная копия Superset staging"

        await _set_css(staging, report, EDITED_CSS)
        planned = await client.post(
            f"/api/backups/{backup_id}/restore/plan",
            json={"target_env_id": ENV},
            headers=auth(Role.analyst),
        )
        assert planned.status_code == 200, planned.text
        plan = planned.json()
        changed = [one for one in plan["dashboards"] if one["action"] == "update"]
        assert [(one["name"], one["fields"]) for one in changed] == [(REPORT, ["css"])]
        restored = await client.post(
            f"/api/backups/{backup_id}/restore",
            json={"target_env_id": ENV, "digest": plan["digest"]},
            headers=auth(Role.admin),
        )
        assert restored.status_code == 202, restored.text
        task = await wait_for_task(client, auth, restored.json()["id"])
        assert task["status"] == "succeeded", task
        assert await _css(staging, report) == POINT_CSS
        assert await _dashboard_export(staging, timeline["uuid"]) == point_export


async def test_an_unknown_dashboard_is_404_and_an_unknown_environment_422(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    missing = await client.get(
        "/api/dashboards/999999/timeline", params={"env_id": ENV}, headers=auth(Role.analyst)
    )
    assert missing.status_code == 404, missing.text
    assert missing.json()["detail"] == "дашборда #999999 нет в окружении Superset staging"
    unknown = await client.get(
        "/api/dashboards/1/timeline", params={"env_id": "nowhere"}, headers=auth(Role.analyst)
    )
    assert unknown.status_code == 422, unknown.text
    assert unknown.json()["detail"][0]["loc"] == ["query", "env_id"]
    assert "окружения nowhere нет" in unknown.json()["detail"][0]["msg"]
    # A commit id the repository lacks names nothing to plan from.
    body = {
        "dashboard_ids": [10],
        "source": {"env_id": "ss-dev", "git_ref": "0" * 40},
        "target_env_id": ENV,
    }
    planned = await client.post("/api/deploy/plan", json=body, headers=auth(Role.analyst))
    assert planned.status_code == 404, planned.text
