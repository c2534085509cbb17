"""Issue 23 §8: Superset requests and time of a warm view of the dashboard page, on the sandbox.

The app runs in this process (its Superset clients on a transport that counts every request);
the bench signs in and views ss-dev's dashboard 10 (it lives in all three environments), once
to warm up, then ``VIEWS`` times. Baseline, in the same run: the same views with the kept
exports and plan verdicts cleared before each one (what a view costs when nothing is kept, the
sharing of one export between the git status and the plans still in place); the issue's figures
for the code before (24 requests, 1.1–2.7 s) stay in the baseline column.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

import httpx

from bench.sandbox_app import CountingTransport, bench_user, sandbox_settings
from bench.table import Row
from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.domain import placement
from sstools.http.services import Services
from sstools.sandbox import Sandbox, SandboxSettings

VIEWS = 20
PAGE = "/dashboards/10?env_id=ss-dev"
ISSUE_CALLS, ISSUE_SECONDS = 24, "1.1–2.7"
GOAL_CALLS, GOAL_P95_S = 8, 0.4


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


async def _measure(root: Path) -> dict[str, tuple[int, float]]:
    settings = sandbox_settings(root)
    token = await bench_user(settings, Role.analyst)
    transport = CountingTransport()
    app = create_app(settings, superset_transport=transport)
    results: dict[str, tuple[int, float]] = {}
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://sstools.bench",
            cookies={"sstools_session": token},
            timeout=60,
        ) as client,
    ):
        services: Services = app.state.services
        for name, kept in (("kept", True), ("nothing kept", False)):
            assert (await client.get(PAGE)).status_code == 200  # sign-ins, first exports
            transport.take()
            counts, times = [], []
            for _ in range(VIEWS):
                if not kept:
                    placement.forget(services.git)
                began = time.perf_counter()
                response = await client.get(PAGE)
                times.append(time.perf_counter() - began)
                assert response.status_code == 200, response.text
                counts.append(transport.take())
            results[name] = (max(counts), _p95(times))
    return results


def rows() -> list[Row]:
    Sandbox(SandboxSettings()).up()
    with tempfile.TemporaryDirectory() as tmp:
        measured = asyncio.run(_measure(Path(tmp)))
    calls, p95 = measured["kept"]
    cold_calls, cold_p95 = measured["nothing kept"]
    return [
        Row(
            area="dashboard page",
            metric=f"Superset requests per warm view (most of {VIEWS})",
            measured=str(calls),
            baseline=f"nothing kept: {cold_calls}; before (issue 23): {ISSUE_CALLS}",
            ratio=calls / ISSUE_CALLS,
            goal=f"≤ {GOAL_CALLS}",
            met=calls <= GOAL_CALLS,
        ),
        Row(
            area="dashboard page",
            metric=f"warm view, p95 of {VIEWS}, s",
            measured=f"{p95:.2f}",
            baseline=f"nothing kept: {cold_p95:.2f}; before (issue 23): {ISSUE_SECONDS}",
            ratio=p95 / cold_p95,
            goal=f"≤ {GOAL_P95_S:.2f}",
            met=p95 <= GOAL_P95_S,
        ),
    ]
