"""Issue 24: a deploy's requests to Superset and its time, plan to finished task, on the sandbox.

Dev's released dashboards are in staging too; before each run the bench edits the CSS of the
dashboards it deploys in dev, so every run has something to change (the no-op run plans the 12
again unedited: nothing to apply). Run it on a quiet sandbox: another process writing staging
meanwhile makes an apply stale (409). Requests are counted where they leave this process
(``httpx`` at the Superset ports), the app's and its task steps' alike. Baseline, in the same
run: the same deploys with the task steps' sessions not kept (each step logs in and fetches a
CSRF token of its own, as before). The goal is the peer's (preset-cli 0.3.13 ``sync native
--split``, measured on this sandbox in issue 24 and kept below): at most its requests and 0.6× its
time; the peer run beside sstools in the same bench, staging cold, more edits: bench/peer.py.
Medians of the runs: the first run also logs in to both environments, as a service does once
after it starts. Afterwards dev's CSS is put back and deployed, so staging
ends as it began. (A snapshot for staging too, issue 24 §5, measured with this bench: +0.3 s on
one dashboard, +0.35 s on 11, more than 10 % of the apply, so SSTOOLS_SNAPSHOT_STAGES stays prod
by default.)
"""

from __future__ import annotations

import asyncio
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.sandbox_app import bench_user, sandbox_settings
from bench.table import Row
from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.environments import EnvironmentRegistry
from sstools.sandbox import Sandbox, SandboxSettings
from sstools.superset import SupersetPool
from sstools.tasks import superset as task_superset
from sstools.testing import LiveServer

SOURCE, TARGET = "ss-dev", "staging"
# Released in every environment (sstools/sandbox/seed.py); the draft is dev's only. Energy KPIs is
# drifted in dev (its CSS): deployed in the 12-dashboard case, it is put back in staging after.
DRAFT, DRIFTED = "Прогноз нагрузки (черновик)", "Energy KPIs"
ONE = "Отчёт по энергопотреблению"
RUNS = 3


@dataclass(frozen=True)
class Peer:
    requests: int
    seconds: float


# preset-cli `--split`, as measured in issue 24 on this sandbox.
PEER = {
    "one dashboard": Peer(11, 3.04),
    "12 dashboards": Peer(31, 5.33),
    "11 dashboards": Peer(30, 5.39),
    "no-op (12)": Peer(31, 5.28),
}


async def source_titles(pool: SupersetPool) -> dict[int, str]:
    """Dev's dashboards' titles by id: the cases are chosen by title (ids differ per sandbox)."""
    rows = (
        await pool.client(SOURCE).get_json(
            "/api/v1/dashboard/", query={"columns": ["id", "dashboard_title"], "page_size": 100}
        )
    )["result"]
    return {row["id"]: row["dashboard_title"] for row in rows}


class _Requests:
    """Requests sent to the sandbox's Superset ports by any httpx client of this process."""

    def __init__(self, ports: set[int]) -> None:
        self._ports = ports
        self._lock = threading.Lock()
        self.sent: Counter[str] = Counter()

    @contextmanager
    def counting(self) -> Iterator[None]:
        original = httpx.AsyncClient.send
        requests = self

        async def send(client: httpx.AsyncClient, request: httpx.Request, **kwargs: Any) -> Any:
            if request.url.port in requests._ports:
                with requests._lock:
                    requests.sent[f"{request.method} {request.url.path}"] += 1
            return await original(client, request, **kwargs)

        httpx.AsyncClient.send = send  # type: ignore[method-assign,assignment]
        try:
            yield
        finally:
            httpx.AsyncClient.send = original  # type: ignore[method-assign]

    def take(self) -> int:
        with self._lock:
            total = sum(self.sent.values())
            self.sent.clear()
        return total


async def _css(pool: SupersetPool, env_id: str, dashboard_id: int) -> str:
    found = await pool.client(env_id).get_json(f"/api/v1/dashboard/{dashboard_id}")
    return str(found["result"].get("css") or "")


async def _set_css(pool: SupersetPool, ids: list[int], css: dict[int, str]) -> None:
    client = pool.client(SOURCE)
    await asyncio.gather(*(client.put_json(f"/api/v1/dashboard/{i}", {"css": css[i]}) for i in ids))


async def _deploy(api: httpx.AsyncClient, headers: dict[str, str], ids: list[int]) -> None:
    body = {"dashboard_ids": ids, "source": {"env_id": SOURCE}, "target_env_id": TARGET}
    plan = (await api.post("/api/deploy/plan", json=body, headers=headers)).json()
    if plan["dashboards_changed"] == 0:
        return  # «изменений нет»: nothing to apply, as the agent says
    route = "/api/deploy" if len(ids) == 1 else "/api/migrations"
    started = await api.post(route, json={**body, "digest": plan["digest"]}, headers=headers)
    assert started.status_code == 202, started.text
    task_id = started.json()["id"]
    while True:
        task = (await api.get(f"/api/tasks/{task_id}", headers=headers)).json()
        if task["status"] in ("succeeded", "failed", "cancelled"):
            assert task["status"] == "succeeded", task
            return
        await asyncio.sleep(0.05)


async def _measure(
    keep_sessions: bool,
    runs: int = RUNS,
    cases: tuple[str, ...] = tuple(PEER),
    snapshot_stages: tuple[str, ...] = ("prod",),
) -> dict[str, tuple[int, float]]:
    sandbox = Sandbox(SandboxSettings())
    environments = EnvironmentRegistry(sandbox.environments())
    ports = {httpx.URL(env.url).port for env in environments.values()} - {None}
    requests = _Requests({port for port in ports if port is not None})
    kept = task_superset._KEYS
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        settings = sandbox_settings(root, snapshot_stages=list(snapshot_stages))
        headers = {"Authorization": f"Bearer {await bench_user(settings, Role.engineer)}"}
        pool = SupersetPool(environments, timeout_s=60)
        titles = await source_titles(pool)
        twelve = sorted(number for number, title in titles.items() if title != DRAFT)
        eleven = [number for number in twelve if titles[number] != DRIFTED]
        one = [next(number for number, title in titles.items() if title == ONE)]
        original = {n: await _css(pool, SOURCE, n) for n in twelve}
        drifted = next(number for number, title in titles.items() if title == DRIFTED)
        in_target = await _css(pool, TARGET, drifted)
        results: dict[str, tuple[int, float]] = {}
        try:
            if not keep_sessions:
                task_superset._KEYS = None  # type: ignore[assignment]
            with LiveServer(create_app(settings)) as server, requests.counting():
                async with httpx.AsyncClient(base_url=server.url, timeout=120) as api:
                    for name, ids, edit in (
                        ("one dashboard", one, True),
                        ("12 dashboards", twelve, True),
                        ("11 dashboards", eleven, True),
                        ("no-op (12)", twelve, False),
                    ):
                        if name not in cases:
                            continue
                        counts, times = [], []
                        for run in range(runs):
                            if edit:
                                stamp = f"/* bench run {run} {time.time_ns()} */"
                                await _set_css(pool, ids, {i: original[i] + stamp for i in ids})
                            requests.take()
                            began = time.perf_counter()
                            await _deploy(api, headers, ids)
                            times.append(time.perf_counter() - began)
                            counts.append(requests.take())
                        results[name] = (
                            sorted(counts)[len(counts) // 2],
                            sorted(times)[len(times) // 2],
                        )
                    await _set_css(pool, twelve, original)  # and staging back to it
                    await _deploy(api, headers, eleven)
                    await pool.client(TARGET).put_json(
                        f"/api/v1/dashboard/{drifted}", {"css": in_target}
                    )
        finally:
            task_superset._KEYS = kept
            await pool.aclose()
    return results


def rows() -> list[Row]:
    Sandbox(SandboxSettings()).up()
    now = asyncio.run(_measure(keep_sessions=True))
    before = asyncio.run(_measure(keep_sessions=False))
    out: list[Row] = []
    for name, peer in PEER.items():
        requests, seconds = now[name]
        old_requests, old_seconds = before[name]
        out.append(
            Row(
                area="deploy",
                metric=f"{name} {SOURCE}→{TARGET}: Superset requests (median of {RUNS} runs)",
                measured=str(requests),
                baseline=f"steps' sessions not kept: {old_requests}; peer: {peer.requests}",
                ratio=requests / peer.requests,
                goal="≤ 1.00× the peer's",
                met=requests <= peer.requests,
            )
        )
        out.append(
            Row(
                area="deploy",
                metric=f"{name} {SOURCE}→{TARGET}: plan to finished task, s (median)",
                measured=f"{seconds:.2f}",
                baseline=f"steps' sessions not kept: {old_seconds:.2f}; peer: {peer.seconds:.2f}",
                ratio=seconds / peer.seconds,
                goal="≤ 0.60× the peer's",
                met=seconds <= 0.6 * peer.seconds,
            )
        )
    return out
