"""Issue 40: sstools beside its peer, preset-cli 0.3.13 ``sync native --split``, in the same run.

Both move dashboards ss-dev → staging on a fleet of their own (``SSTOOLS_SANDBOX_FLEET``
``bench-peer``, the base port + 40), so no other bench or test sees the edits or the restarts. For
each case the tools take turns (run r starts with the r-th tool: each is first once in 3 runs),
and before every run, of any tool:

- fresh edits in dev: the moved dashboards' CSS, a chart's params (its row limit) and description,
  and its dataset's description (none for the no-op case; the dataset-missing case also points
  the chart at a new virtual dataset, which staging lacks);
- staging restarted cold (its process stopped and started again, healthy before the clock starts).

sstools: its app on a live port (its first run logs in, as a service does once; later runs keep
its sessions across staging's restart, as a running service does), ``/api/deploy/plan`` then the
deploy (one dashboard) or the migration, the clock stopped when the task has finished. The peer:
``superset-cli <dev> export-assets --dashboard-ids …`` then ``superset-cli <staging> sync native
--overwrite --split`` (each a process of its own, in a fresh folder: its progress.log never skips
anything), logged in as the sandbox's service account, its clock the two processes' wall time.
``--split`` stops with ``KeyError: 'dataset_uuid'`` on any bundle holding «Тарифы 2023 (архив)»
(its chart lost its dataset, as the sandbox seeds it), i.e. on the 12 and the 11 dashboards, after
importing datasets and charts and before any dashboard. So the same runs also measure
``--split --continue-on-error`` (what a user adds then), shown beside it; the goal stays --split's.
The no-op case starts from staging made equal to dev (one sstools deploy, not measured), since
the case before it leaves staging behind whenever the peer ran last.

Requests are counted from Superset's own access logs (werkzeug's line per request in each
instance's ``superset.log``), dev's and staging's, between the clock's start and a moment after
its stop: the same count for every tool, whatever client sends them. Correctness, read from both
instances' metadata DBs after each run (no request): staging equals dev in every moved
dashboard's CSS, the chart's params (less ``datasource``, an id) and description, the dataset's
description (and, in the dataset-missing case, the chart's dataset by UUID); and staging's
database connection (its ``dbs`` row, every column, ``changed_on`` too) as it was before the run.
Medians of the runs (``SSTOOLS_BENCH_PEER_RUNS``, default 3). The goal (issue 40): ≤ 0.6× the
peer's time and ≤ its requests in every case, correct every time. preset-cli lives in a venv of
the bench's own (bench/peer_venv.py); a machine that cannot install it gets one row saying why.
Every run's request list (counted by path) goes to ``.bench-venvs/peer-requests.txt``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.deploys import DRAFT, DRIFTED, ONE, SOURCE, TARGET, source_titles
from bench.peer_venv import VENV, PeerUnavailable, superset_cli
from bench.sandbox_app import bench_user, sandbox_settings
from bench.table import Row
from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.environments import EnvironmentRegistry
from sstools.sandbox import Sandbox, SandboxSettings
from sstools.sandbox.superset_home import SERVICE_ACCOUNT
from sstools.superset import SupersetPool
from sstools.testing import LiveServer

FLEET, PORT_OFFSET = "bench-peer", 40  # clear of the test workers' fleets (+10 each, at most 4)
CHART = "Потребление по регионам"  # on ONE and on Energy KPIs; its dataset: energy_consumption
RUNS = int(os.environ.get("SSTOOLS_BENCH_PEER_RUNS", "3"))
SPLIT, SPLIT_ON = "preset-cli --split", "preset-cli --split -c"
# Each tool's flags to `sync native` after --overwrite; -c (--continue-on-error): what a user adds
# when --split stops on a chart without its dataset (a reference, not the goal's baseline).
PEER_FLAGS = {SPLIT: ("--split",), SPLIT_ON: ("--split", "--continue-on-error")}
TOOLS = ("sstools", SPLIT, SPLIT_ON)
REQUEST_LISTS = VENV.parent / "peer-requests.txt"
_COLOUR = re.compile(r"\x1b\[[0-9;]*m")  # werkzeug colours some lines (201s, 304s, errors)
_LINE = re.compile(r'"(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (\S+) HTTP/[\d.]+" (\d{3})')


@dataclass(frozen=True)
class Case:
    name: str
    dashboards: str  # "one", "twelve" or "eleven"
    edit: bool = True
    new_dataset: bool = False


CASES = (
    Case("one dashboard", "one"),
    Case("12 dashboards", "twelve"),
    Case("no-op (12)", "twelve", edit=False),
    Case("11 dashboards", "eleven"),
    Case("a chart's dataset missing in the target", "one", new_dataset=True),
)


@dataclass
class Run:
    seconds: float
    requests: list[str]  # "METHOD /path status", dev's and staging's, in log order
    problems: list[str]  # empty: correct
    connection_kept: bool
    load: float  # the 1-minute load average as the run started


@dataclass
class Outcome:
    runs: dict[str, list[Run]] = field(default_factory=lambda: {tool: [] for tool in TOOLS})


def peer_sandbox() -> Sandbox:
    """The bench's own fleet, beside the one ``SSTOOLS_SANDBOX_*`` names (same venv, own ports)."""
    base = SandboxSettings()
    return Sandbox(
        SandboxSettings(dir=base.dir, base_port=base.base_port + PORT_OFFSET, fleet=FLEET)
    )


class AccessLog:
    """Werkzeug's request lines in one instance's ``superset.log``, from a mark on."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0

    def mark(self) -> None:
        self._offset = self.path.stat().st_size

    def since_mark(self) -> list[str]:
        with self.path.open("rb") as handle:
            handle.seek(self._offset)
            text = handle.read().decode("utf-8", errors="replace")
        found = []
        for line in text.splitlines():
            if match := _LINE.search(_COLOUR.sub("", line)):
                method, target, status = match.groups()
                found.append(f"{method} {target.split('?', 1)[0]} {status}")
        return found


# -- the metadata DBs, read directly: checks cost no request and warm nothing -----------------


def _rows(db: Path, sql: str, *args: Any) -> list[sqlite3.Row]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as connection:
        connection.row_factory = sqlite3.Row
        return connection.execute(sql, args).fetchall()


def _connection(db: Path) -> list[dict[str, Any]]:
    return [dict(row) for row in _rows(db, "SELECT * FROM dbs ORDER BY id")]


def _params(text: str | None) -> dict[str, Any]:
    params: dict[str, Any] = json.loads(text or "{}")
    params.pop("datasource", None)  # "<id>__table": ids differ between environments
    params.pop("slice_id", None)
    return params


@dataclass(frozen=True)
class Watched:
    """What a run must carry over, by UUID (the same in every environment)."""

    dashboards: list[bytes]
    chart: bytes


def _problems(dev: Path, staging: Path, watched: Watched, new_dataset: bool) -> list[str]:
    problems = []
    for uuid in watched.dashboards:
        sql = "SELECT dashboard_title, css FROM dashboards WHERE uuid = ?"
        source, target = _rows(dev, sql, uuid), _rows(staging, sql, uuid)
        if not target:
            problems.append(f"dashboard {source[0]['dashboard_title']} missing")
        elif (source[0]["css"] or "") != (target[0]["css"] or ""):
            problems.append(f"css of {source[0]['dashboard_title']}")
    sql = (
        "SELECT s.params, s.description, t.uuid AS dataset, t.description AS dataset_description"
        " FROM slices s LEFT JOIN tables t ON t.id = s.datasource_id WHERE s.uuid = ?"
    )
    source, target = _rows(dev, sql, watched.chart), _rows(staging, sql, watched.chart)
    if not target:
        return [*problems, "chart missing"]
    if _params(source[0]["params"]) != _params(target[0]["params"]):
        problems.append("chart params")
    if (source[0]["description"] or "") != (target[0]["description"] or ""):
        problems.append("chart description")
    if target[0]["dataset"] is None:
        problems.append("chart's dataset missing")
    elif source[0]["dataset"] != target[0]["dataset"]:
        problems.append("chart's dataset" + (" (the new one)" if new_dataset else ""))
    elif (source[0]["dataset_description"] or "") != (target[0]["dataset_description"] or ""):
        problems.append("dataset description")
    return problems


# -- dev's edits ------------------------------------------------------------------------------


@dataclass
class Dev:
    """Dev's state the bench edits, to edit afresh before each run and to put back after."""

    pool: SupersetPool
    css: dict[int, str]
    chart_id: int
    chart: dict[str, Any]  # params, description, datasource_id as found
    dataset_id: int
    dataset_description: str
    database_id: int
    edits: int = 0
    made: list[int] = field(default_factory=list)  # the bench's virtual datasets in dev

    async def edit(self, ids: Sequence[int], new_dataset: bool) -> None:
        self.edits += 1
        stamp = f"bench peer {self.edits} {time.time_ns()}"
        client = self.pool.client(SOURCE)
        await asyncio.gather(
            *(
                client.put_json(f"/api/v1/dashboard/{i}", {"css": f"{self.css[i]}/* {stamp} */"})
                for i in ids
            )
        )
        params = json.loads(self.chart["params"] or "{}")
        params["row_limit"] = 1000 + self.edits
        body: dict[str, Any] = {"description": stamp}
        dataset_id = self.dataset_id
        if new_dataset:
            made = await client.post_json(
                "/api/v1/dataset/",
                {
                    "database": self.database_id,
                    "table_name": f"bench_peer_{self.edits}_{time.time_ns()}",
                    "sql": "SELECT * FROM energy_consumption",
                },
            )
            dataset_id = int(made["id"])
            self.made.append(dataset_id)
            body |= {"datasource_id": dataset_id, "datasource_type": "table"}
        params["datasource"] = f"{dataset_id}__table"
        await client.put_json(
            f"/api/v1/chart/{self.chart_id}", {**body, "params": json.dumps(params)}
        )
        await client.put_json(f"/api/v1/dataset/{dataset_id}", {"description": stamp})

    async def restore(self) -> None:
        client = self.pool.client(SOURCE)
        for number, css in self.css.items():
            await client.put_json(f"/api/v1/dashboard/{number}", {"css": css})
        await client.put_json(
            f"/api/v1/chart/{self.chart_id}",
            {
                "params": self.chart["params"],
                "description": self.chart["description"],
                "datasource_id": self.dataset_id,
                "datasource_type": "table",
            },
        )
        await client.put_json(
            f"/api/v1/dataset/{self.dataset_id}", {"description": self.dataset_description}
        )
        for made in self.made:
            await client.delete(f"/api/v1/dataset/{made}")


async def _dev(pool: SupersetPool, dashboards: list[int]) -> Dev:
    client = pool.client(SOURCE)
    css = {}
    for number in dashboards:
        found = await client.get_json(f"/api/v1/dashboard/{number}")
        css[number] = str(found["result"].get("css") or "")
    charts = await client.get_json(
        "/api/v1/chart/",
        query={
            "columns": ["id", "datasource_id", "params", "description"],
            "filters": [{"col": "slice_name", "opr": "eq", "value": CHART}],
        },
    )
    chart = charts["result"][0]
    chart_id, dataset_id = int(chart["id"]), int(chart["datasource_id"])
    dataset = (await client.get_json(f"/api/v1/dataset/{dataset_id}"))["result"]
    return Dev(
        pool=pool,
        css=css,
        chart_id=chart_id,
        chart={"params": chart.get("params"), "description": chart.get("description")},
        dataset_id=dataset_id,
        dataset_description=str(dataset.get("description") or ""),
        database_id=int(dataset["database"]["id"]),
    )


# -- the two tools ----------------------------------------------------------------------------


async def _sstools(api: httpx.AsyncClient, headers: dict[str, str], ids: list[int]) -> str | None:
    """Plan, then deploy or migrate; None when the task succeeded, else what went wrong."""
    body = {"dashboard_ids": ids, "source": {"env_id": SOURCE}, "target_env_id": TARGET}
    planned = await api.post("/api/deploy/plan", json=body, headers=headers)
    if planned.status_code != 200:
        return f"plan: {planned.status_code} {planned.text[:200]}"
    plan = planned.json()
    if plan["dashboards_changed"] == 0:
        return None  # «изменений нет»: nothing to apply
    route = "/api/deploy" if len(ids) == 1 else "/api/migrations"
    started = await api.post(route, json={**body, "digest": plan["digest"]}, headers=headers)
    if started.status_code != 202:
        return f"{route}: {started.status_code} {started.text[:200]}"
    task_id = started.json()["id"]
    while True:
        task = (await api.get(f"/api/tasks/{task_id}", headers=headers)).json()
        if task["status"] in ("succeeded", "failed", "cancelled"):
            return None if task["status"] == "succeeded" else f"task {task['status']}"
        await asyncio.sleep(0.05)


def _peer(
    cli: Path, urls: dict[str, str], password: str, ids: list[int], flags: tuple[str, ...]
) -> str | None:
    """Export from dev, sync into staging with ``flags``; None when both exit 0."""
    login = ["-u", SERVICE_ACCOUNT, "-p", password]
    with tempfile.TemporaryDirectory(prefix="peer-") as tmp:
        bundle = Path(tmp) / "bundle"
        bundle.mkdir()
        export = ["export-assets", str(bundle), "--dashboard-ids", ",".join(map(str, ids))]
        sync = ["sync", "native", str(bundle), "--overwrite", *flags]
        steps = ([str(cli), *login, urls[SOURCE], *export], [str(cli), *login, urls[TARGET], *sync])
        for step in steps:
            done = subprocess.run(  # noqa: S603 - the bench's own venv's superset-cli
                step, cwd=tmp, capture_output=True, text=True, check=False, timeout=600
            )
            if done.returncode != 0:
                tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
                return f"{step[6]}: exit {done.returncode}: {' '.join(tail)[:300]}"
    return None


# -- the measurement --------------------------------------------------------------------------


def _restart_cold(sandbox: Sandbox) -> None:
    sandbox.stop(TARGET)
    sandbox.start(TARGET)


async def _measure(cli: Path, sandbox: Sandbox) -> dict[str, Outcome]:
    environments = EnvironmentRegistry(sandbox.environments())
    urls = {env.id: env.url for env in environments.values()}
    password = environments[SOURCE].password.get_secret_value()
    logs = {env_id: AccessLog(sandbox.root / "envs" / env_id / "superset.log") for env_id in urls}
    metadata = {env_id: sandbox.root / "envs" / env_id / "superset.db" for env_id in urls}
    pool = SupersetPool(environments, timeout_s=60)
    outcomes: dict[str, Outcome] = {}
    lists: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = sandbox_settings(Path(tmp), sandbox=sandbox, drift_watch_cron="")
        headers = {"Authorization": f"Bearer {await bench_user(settings, Role.engineer)}"}
        titles = await source_titles(pool)
        twelve = sorted(number for number, title in titles.items() if title != DRAFT)
        chosen = {
            "one": [next(number for number, title in titles.items() if title == ONE)],
            "twelve": twelve,
            "eleven": [number for number in twelve if titles[number] != DRIFTED],
        }
        dev = await _dev(pool, twelve)

        def uuids(ids: list[int]) -> list[bytes]:
            marks = ",".join("?" * len(ids))
            sql = f"SELECT uuid FROM dashboards WHERE id IN ({marks})"  # noqa: S608 - only ?s
            return [row["uuid"] for row in _rows(metadata[SOURCE], sql, *ids)]

        chart_uuid = _rows(metadata[SOURCE], "SELECT uuid FROM slices WHERE id = ?", dev.chart_id)
        try:
            with LiveServer(create_app(settings)) as server:
                async with httpx.AsyncClient(base_url=server.url, timeout=600) as api:
                    for case in CASES:
                        ids = chosen[case.dashboards]
                        watched = Watched(uuids(ids), chart_uuid[0]["uuid"])
                        outcome = outcomes[case.name] = Outcome()
                        if not case.edit:  # a no-op for both: staging made equal to dev, untimed
                            await _sstools(api, headers, ids)
                        for run in range(RUNS):
                            order = TOOLS[run % len(TOOLS) :] + TOOLS[: run % len(TOOLS)]
                            for tool in order:
                                if case.edit:
                                    await dev.edit(ids, case.new_dataset)
                                await asyncio.to_thread(_restart_cold, sandbox)
                                before = _connection(metadata[TARGET])
                                for log in logs.values():
                                    log.mark()
                                load = os.getloadavg()[0]
                                began = time.perf_counter()
                                if tool == "sstools":
                                    failed = await _sstools(api, headers, ids)
                                else:
                                    failed = await asyncio.to_thread(
                                        _peer, cli, urls, password, ids, PEER_FLAGS[tool]
                                    )
                                seconds = time.perf_counter() - began
                                await asyncio.sleep(0.5)  # werkzeug logs after it responds
                                sent = [
                                    f"{e} {line}"
                                    for e in (SOURCE, TARGET)
                                    for line in logs[e].since_mark()
                                ]
                                problems = [failed] if failed else []
                                problems += _problems(
                                    metadata[SOURCE], metadata[TARGET], watched, case.new_dataset
                                )
                                kept = before == _connection(metadata[TARGET])
                                outcome.runs[tool].append(Run(seconds, sent, problems, kept, load))
                                print(
                                    f"  {case.name} run {run} {tool}: {seconds:.2f} s, "
                                    f"{len(sent)} requests, "
                                    f"{problems or 'correct'}, "
                                    f"connection {'kept' if kept else 'REWRITTEN'}, "
                                    f"load {load:.1f}",
                                    file=sys.stderr,
                                    flush=True,
                                )
                        for tool in TOOLS:
                            for run, done in enumerate(outcome.runs[tool]):
                                counted = Counter(done.requests)
                                title = f"{case.name}: {tool}, run {run}"
                                lists.append(f"## {title} ({len(done.requests)})")
                                lists += [f"{n:3} × {line}" for line, n in sorted(counted.items())]
        finally:
            await dev.restore()
            await pool.aclose()
            REQUEST_LISTS.parent.mkdir(parents=True, exist_ok=True)
            REQUEST_LISTS.write_text("\n".join(lists) + "\n", encoding="utf-8")
    return outcomes


def _verdict(runs: list[Run]) -> str:
    correct = sum(1 for r in runs if not r.problems)
    kept = sum(1 for r in runs if r.connection_kept)
    return f"correct {correct}/{len(runs)}, connection kept {kept}/{len(runs)}"


def _median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def _seconds(runs: list[Run]) -> float:
    return _median([r.seconds for r in runs])


def _requests(runs: list[Run]) -> float:
    return _median([len(r.requests) for r in runs])


def rows() -> list[Row]:
    try:
        cli = superset_cli()
    except PeerUnavailable as why:
        reason = str(why).replace("\n", " ").replace("|", "/")[-300:]  # pip says why last
        return [
            Row("deploy vs peer", "preset-cli 0.3.13 not installed", "—", reason, None, "—", True)
        ]
    sandbox = peer_sandbox()
    sandbox.up()
    sandbox.stop("prod")  # not used here: one process fewer on a small machine
    try:
        outcomes = asyncio.run(_measure(cli, sandbox))
    finally:
        sandbox.down()  # the fleet is the bench's own: nothing else needs it up
    out: list[Row] = []
    for name, outcome in outcomes.items():
        ours, split, split_on = (outcome.runs[tool] for tool in TOOLS)
        loads = [r.load for runs in outcome.runs.values() for r in runs]
        seconds, peer_seconds = _seconds(ours), _seconds(split)
        requests, peer_requests = _requests(ours), _requests(split)
        all_correct = all(not r.problems and r.connection_kept for r in ours)
        note = (
            f"median of {RUNS} runs each, alternating, staging cold; "
            f"load {_median(loads):.1f} (≤ {max(loads):.1f}) on {os.cpu_count()} cores"
        )
        out.append(
            Row(
                area="deploy vs peer",
                metric=f"{name}: time, s ({note})",
                measured=f"{seconds:.2f} ({_verdict(ours)})",
                baseline=(
                    f"{SPLIT}: {peer_seconds:.2f} ({_verdict(split)}); "
                    f"{SPLIT_ON}: {_seconds(split_on):.2f} ({_verdict(split_on)})"
                ),
                ratio=seconds / peer_seconds,
                goal="≤ 0.60× --split's, correct every run",
                met=seconds <= 0.6 * peer_seconds and all_correct,
            )
        )
        out.append(
            Row(
                area="deploy vs peer",
                metric=f"{name}: Superset requests (access logs, dev + staging; median)",
                measured=f"{requests:g}",
                baseline=f"{SPLIT}: {peer_requests:g}; {SPLIT_ON}: {_requests(split_on):g}",
                ratio=requests / peer_requests if peer_requests else None,
                goal="≤ 1.00× --split's",
                met=requests <= peer_requests,
            )
        )
    return out
