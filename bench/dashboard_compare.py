"""Issue 37 §3: a 12-chart dashboard's numbers compared across two environments, on the sandbox.

The bench makes its own dashboard of 12 charts in ss-dev (copies of the seeded charts' queries,
so no seeded object changes), imports it into staging as a deploy would, and times
``POST /api/dashboards/{id}/data/compare`` with a filter, through the app in this process.
Baseline, in the same run: reading that dashboard's numbers in one environment (``/data``), the
half of the work a comparison does twice. Everything it made is deleted afterwards.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from bench.sandbox_app import bench_user, sandbox_settings
from bench.table import Row
from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.environments import EnvironmentRegistry
from sstools.sandbox import Sandbox, SandboxSettings
from sstools.superset import SupersetClient

CHARTS, RUNS, GOAL_S = 12, 3, 10.0
TITLE = "bench: 12 charts"
FILTER = [{"column": "region", "op": "NOT IN", "values": ["—"]}]


async def _make(dev: SupersetClient) -> int:
    """A dashboard of ``CHARTS`` new charts in ``dev``: its id."""
    columns = ["id", "datasource_id", "viz_type", "params"]
    query = {"columns": columns, "page_size": 100}
    seeded = [
        row
        for row in (await dev.get_json("/api/v1/chart/", query=query))["result"]
        if row.get("datasource_id") and row.get("params")
    ]
    board = await dev.post_json("/api/v1/dashboard/", {"dashboard_title": TITLE})
    board_id = int(board["id"])
    for index in range(CHARTS):
        raw = seeded[index % len(seeded)]
        params = json.loads(raw["params"]) | {"datasource": f"{raw['datasource_id']}__table"}
        made = await dev.post_json(
            "/api/v1/chart/",
            {
                "slice_name": f"{TITLE} #{index + 1}",
                "viz_type": raw["viz_type"],
                "params": json.dumps(params),
                "datasource_id": raw["datasource_id"],
                "datasource_type": "table",
                "dashboards": [board_id],
            },
        )
        assert made.get("id"), made
    return board_id


async def _delete(client: SupersetClient) -> None:
    """The bench's dashboard and charts, by their title (a run cut short leaves them too)."""
    for resource, column in (("dashboard", "dashboard_title"), ("chart", "slice_name")):
        query = {"columns": ["id"], "filters": [{"col": column, "opr": "sw", "value": TITLE}]}
        for row in (await client.get_json(f"/api/v1/{resource}/", query=query))["result"]:
            await client.delete(f"/api/v1/{resource}/{row['id']}")


@asynccontextmanager
async def _twelve_charts(sandbox: Sandbox) -> AsyncIterator[int]:
    registry = EnvironmentRegistry(sandbox.environments())
    dev, staging = (SupersetClient(registry[env], timeout_s=120) for env in ("ss-dev", "staging"))
    try:
        await asyncio.gather(_delete(dev), _delete(staging))
        board_id = await _make(dev)
        bundle = await dev.export_dashboards([board_id])
        await staging.import_dashboards(bundle, overwrite=True)
        yield board_id
    finally:
        for client in (dev, staging):
            await _delete(client)
            await client.aclose()


async def _measure(root: Path, sandbox: Sandbox) -> dict[str, float]:
    settings = sandbox_settings(root)
    token = await bench_user(settings, Role.analyst)
    app = create_app(settings)
    times: dict[str, list[float]] = {"compare": [], "one": []}
    async with (
        _twelve_charts(sandbox) as board_id,
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://sstools.bench",
            headers={"Authorization": f"Bearer {token}"},
            timeout=120,
        ) as client,
    ):
        base = f"/api/dashboards/{board_id}/data"
        asks = {
            "compare": (f"{base}/compare", {"other_env_id": "staging", "filters": FILTER}),
            "one": (base, {"filters": FILTER, "row_limit": 100}),
        }
        for _ in range(RUNS):
            for name, (path, body) in asks.items():
                began = time.perf_counter()
                response = await client.post(path, params={"env_id": "ss-dev"}, json=body)
                times[name].append(time.perf_counter() - began)
                assert response.status_code == 200, response.text
                charts = response.json()["charts"]
                assert len(charts) == CHARTS, charts
                assert not any(chart["error"] for chart in charts), charts
    return {name: statistics.median(values) for name, values in times.items()}


def rows() -> list[Row]:
    sandbox = Sandbox(SandboxSettings())
    sandbox.up()
    with tempfile.TemporaryDirectory() as tmp:
        measured = asyncio.run(_measure(Path(tmp), sandbox))
    compare, one = measured["compare"], measured["one"]
    return [
        Row(
            area="dashboard data",
            metric=f"a {CHARTS}-chart dashboard compared across two environments, median of "
            f"{RUNS}, s",
            measured=f"{compare:.2f}",
            baseline=f"its numbers in one environment: {one:.2f}",
            ratio=compare / one,
            goal=f"≤ {GOAL_S:.0f}",
            met=compare <= GOAL_S,
        )
    ]
