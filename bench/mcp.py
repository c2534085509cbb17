"""Issue 35: what the MCP face costs over the API it wraps, over loopback on the sandbox.

The app serves on a loopback port (uvicorn, as ``sstools serve``); an official MCP client keeps
one session open. ``tools/list`` and a read ``tools/call`` (``list_environments``) are each timed
against the same read straight from ``/api`` (``GET /api/environments``) in the same run: the
ratio is what the face adds (JSON-RPC over streamable HTTP, the guard, the audit row).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from bench.sandbox_app import bench_user, sandbox_settings
from bench.table import Row
from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.sandbox import Sandbox, SandboxSettings
from sstools.testing import LiveServer

REPEATS = 60
GOAL_LIST, GOAL_CALL = 3.0, 5.0  # ratios of p95 to the read through /api


def _p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1]


async def _timed(action: Callable[[], Awaitable[object]]) -> float:
    for _ in range(5):  # warm: connections, caches
        await action()
    samples = []
    for _ in range(REPEATS):
        began = time.perf_counter()
        await action()
        samples.append(time.perf_counter() - began)
    return _p95(samples)


async def _measure(root: Path) -> dict[str, float]:
    settings = sandbox_settings(root, drift_watch_cron="")
    token = await bench_user(settings, Role.analyst)
    headers = {"Authorization": f"Bearer {token}"}
    with LiveServer(create_app(settings)) as server:
        async with (
            httpx.AsyncClient(base_url=server.url, headers=headers, timeout=60) as api,
            streamable_http_client(f"{server.url}/mcp", http_client=api) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()

            async def through_api() -> None:
                assert (await api.get("/api/environments")).status_code == 200

            async def listed() -> None:
                assert (await session.list_tools()).tools

            async def called() -> None:
                assert not (await session.call_tool("list_environments", {})).isError

            return {
                "api": await _timed(through_api),
                "list": await _timed(listed),
                "call": await _timed(called),
            }


def rows() -> list[Row]:
    Sandbox(SandboxSettings()).up()
    with tempfile.TemporaryDirectory() as tmp:
        m = asyncio.run(_measure(Path(tmp)))
    api = f"GET /api/environments: {m['api'] * 1000:.1f}"
    return [
        Row(
            area="MCP",
            metric="tools/list p95 over loopback, ms",
            measured=f"{m['list'] * 1000:.1f}",
            baseline=api,
            ratio=m["list"] / m["api"],
            goal=f"≤ {GOAL_LIST:.0f}×",
            met=m["list"] / m["api"] <= GOAL_LIST,
        ),
        Row(
            area="MCP",
            metric="a read tools/call (list_environments) p95 over loopback, ms",
            measured=f"{m['call'] * 1000:.1f}",
            baseline=api,
            ratio=m["call"] / m["api"],
            goal=f"≤ {GOAL_CALL:.0f}×",
            met=m["call"] / m["api"] <= GOAL_CALL,
        ),
    ]


if __name__ == "__main__":
    for row in rows():
        print(row)
