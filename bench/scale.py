"""``make bench-scale``: 1, 2 and 4 sstools workers on one PostgreSQL database, 1,000 conversations.

Each worker is its own ``sstools serve`` process on its own port (the shape of several machines);
the client spreads the load: conversation *k* posts its message to worker *k mod N* and streams
its events from worker *k+1 mod N*, so with N > 1 every stream crosses workers. The model is the
offline planner; its read tool (the dashboard's health) calls a fake Superset served over HTTP on
loopback, in a process of its own. All conversations are created first, their streams opened,
then every message is sent at once and streamed to ``done``.

Measured per N: completed runs per second (first message sent → last ``done``), p50/p99 time
from sending to the first event and to ``done``, lost and duplicated events (each live stream
against the conversation's stored log, read again afterwards), cross-talk (an event of another
run, or an answer about another conversation's dashboard), and each worker's resident memory.

``python -m bench.scale [--conversations 1000] [--workers 1 2 4]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.numbered_dashboards import NAMED, fake_superset_process
from bench.table import Row
from sstools.testing.fake_superset import FakeSuperset
from sstools.testing.fleet import (
    Fleet,
    Worker,
    environments_file,
    fresh_database,
    rss_mib,
)

CONVERSATIONS = 1000
WORKER_COUNTS = (1, 2, 4)
USERS = 10
RUN_TIMEOUT_S = 300.0
SETUP_CONCURRENCY = 32
RECONNECTS = 5  # a cut stream is opened again, as EventSource does, this many times at most
RECONNECT_WAIT_S = 1.0  # creating conversations and re-reading logs is not what is measured
# Per-user caps raised so that USERS users can hold CONVERSATIONS conversations, all running.
CAPS = {
    "SSTOOLS_AGENT_RUNS_PER_USER": str(CONVERSATIONS),
    "SSTOOLS_AGENT_STREAMS_PER_USER": str(CONVERSATIONS),
    "SSTOOLS_AGENT_CONVERSATIONS_PER_USER": str(CONVERSATIONS * len(WORKER_COUNTS)),
}


@dataclass
class Outcome:
    """One conversation's message, as its client saw it."""

    status: int = 0
    run_id: str = ""
    first_event_s: float | None = None
    done_s: float | None = None
    live_ids: list[int] = field(default_factory=list)
    lost: int = 0
    duplicated: int = 0
    cross_talk: int = 0
    reconnects: int = 0


@dataclass
class Round:
    workers: int
    conversations: int
    completed: int
    runs_per_s: float
    first_event_p50: float
    first_event_p99: float
    done_p50: float
    done_p99: float
    lost: int
    duplicated: int
    cross_talk: int
    refused: int
    reconnects: int
    rss_mib: list[float]


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def _context(dashboard_id: int) -> dict[str, Any]:
    return {
        "contextVersion": 1,
        "objectType": "dashboard",
        "objectId": str(dashboard_id),
        "envId": "ss-dev",
        "route": f"/dashboards/{dashboard_id}",
    }


async def _events(
    client: httpx.AsyncClient,
    conversation_id: str,
    headers: dict[str, str],
    opened: asyncio.Event | None = None,
    after: int = 0,
) -> list[tuple[float, int, dict[str, Any]]]:
    """(arrival, id, event) up to and including ``done``; :class:`httpx.HTTPError` if cut."""
    received: list[tuple[float, int, dict[str, Any]]] = []
    resume = {"Last-Event-ID": str(after)} if after else {}
    async with client.stream(
        "GET",
        f"/api/agent/conversations/{conversation_id}/events",
        headers={**headers, **resume},
    ) as response:
        if opened is not None:
            opened.set()
        if response.status_code != 200:
            return received
        event_id = 0
        async for line in response.aiter_lines():
            if line.startswith("id:"):
                event_id = int(line[3:].strip())
            elif line.startswith("data:"):
                event = json.loads(line[5:].strip())
                received.append((time.perf_counter(), event_id, event))
                if event["type"] == "done":
                    break
    return received


async def _follow(
    client: httpx.AsyncClient,
    conversation_id: str,
    headers: dict[str, str],
    opened: asyncio.Event,
    outcome: Outcome,
) -> list[tuple[float, int, dict[str, Any]]]:
    """As a browser's EventSource: a cut stream is opened again with ``Last-Event-ID``."""
    live: list[tuple[float, int, dict[str, Any]]] = []
    chunk: list[tuple[float, int, dict[str, Any]]] = []
    for _ in range(RECONNECTS + 1):
        try:
            chunk = await _events(
                client, conversation_id, headers, opened, live[-1][1] if live else 0
            )
        except httpx.HTTPError:
            outcome.reconnects += 1
            opened.set()
            await asyncio.sleep(RECONNECT_WAIT_S)
            continue
        live += chunk
        if not chunk or chunk[-1][2]["type"] == "done":
            break
    return live


async def _bounded(limit: int, jobs: list[Any]) -> list[Any]:
    gate = asyncio.Semaphore(limit)

    async def one(job: Any) -> Any:
        async with gate:
            return await job

    return await asyncio.gather(*(one(job) for job in jobs))


async def _converse(
    k: int,
    conversation_id: str,
    post: httpx.AsyncClient,
    stream: httpx.AsyncClient,
    headers: dict[str, str],
    go: asyncio.Event,
    opened: asyncio.Event,
) -> tuple[Outcome, list[tuple[float, int, dict[str, Any]]]]:
    outcome = Outcome()
    listening = asyncio.create_task(_follow(stream, conversation_id, headers, opened, outcome))
    await go.wait()
    sent = time.perf_counter()
    response = await post.post(
        f"/api/agent/conversations/{conversation_id}/messages",
        json={"text": "расскажи про этот дашборд", "uicontext": _context(k + 1)},
        headers=headers,
    )
    outcome.status = response.status_code
    if response.status_code != 202:
        listening.cancel()
        return outcome, []
    outcome.run_id = response.json()["run_id"]
    try:
        live = await asyncio.wait_for(listening, RUN_TIMEOUT_S)
    except TimeoutError:  # counted as not completed
        return outcome, []
    if live:
        outcome.first_event_s = live[0][0] - sent
        if live[-1][2]["type"] == "done":
            outcome.done_s = live[-1][0] - sent
    outcome.live_ids = [event_id for _, event_id, _ in live]
    for _, _, event in live:
        foreign_run = event.get("run_id") != outcome.run_id
        # An answer about another conversation's dashboard (one without a title, e.g. a tool
        # that failed under load, is not cross-talk).
        named = {int(n) for n in NAMED.findall(event.get("text", ""))}
        foreign_answer = event["type"] == "message" and bool(named - {k + 1})
        if foreign_run or foreign_answer:
            outcome.cross_talk += 1
            print(f"  cross-talk? conversation {k + 1}: {event}", file=sys.stderr)
    return outcome, live


async def _round(workers: list[Worker], headers: list[dict[str, str]], count: int) -> Round:
    n = len(workers)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    timeout = httpx.Timeout(RUN_TIMEOUT_S, connect=60)
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                httpx.AsyncClient(base_url=w.url, timeout=timeout, limits=limits)
            )
            for w in workers
        ]

        async def create(k: int) -> str:
            response = await clients[k % n].post(
                "/api/agent/conversations", headers=headers[k % len(headers)]
            )
            response.raise_for_status()
            conversation_id: str = response.json()["id"]
            return conversation_id

        ids: list[str] = await _bounded(SETUP_CONCURRENCY, [create(k) for k in range(count)])
        go = asyncio.Event()
        opened = [asyncio.Event() for _ in range(count)]
        tasks = [
            asyncio.create_task(
                _converse(
                    k,
                    ids[k],
                    clients[k % n],
                    clients[(k + 1) % n],
                    headers[k % len(headers)],
                    go,
                    opened[k],
                )
            )
            for k in range(count)
        ]
        await asyncio.wait_for(asyncio.gather(*(o.wait() for o in opened)), 120)
        started = time.perf_counter()
        go.set()
        results = await asyncio.gather(*tasks)
        finished = max((live[-1][0] for _, live in results if live), default=started)

        async def stored(k: int) -> list[int]:
            log = await _follow(
                clients[k % n], ids[k], headers[k % len(headers)], asyncio.Event(), Outcome()
            )
            return [event_id for _, event_id, _ in log]

        logs: list[list[int]] = await _bounded(
            SETUP_CONCURRENCY, [stored(k) for k, (o, _) in enumerate(results) if o.status == 202]
        )
    outcomes = [o for o, _ in results]
    accepted = [o for o in outcomes if o.status == 202]
    for outcome, log in zip(accepted, logs, strict=True):
        if outcome.done_s is None:  # not completed: counted as such, not as lost events
            continue
        outcome.lost = len(set(log) - set(outcome.live_ids))
        outcome.duplicated = len(outcome.live_ids) - len(set(outcome.live_ids))
    completed = [o for o in accepted if o.done_s is not None]
    first = [o.first_event_s for o in accepted if o.first_event_s is not None]
    done = [o.done_s for o in completed if o.done_s is not None]
    return Round(
        workers=n,
        conversations=count,
        completed=len(completed),
        runs_per_s=len(completed) / max(finished - started, 1e-9),
        first_event_p50=_percentile(first, 50),
        first_event_p99=_percentile(first, 99),
        done_p50=_percentile(done, 50),
        done_p99=_percentile(done, 99),
        lost=sum(o.lost for o in accepted),
        duplicated=sum(o.duplicated for o in accepted),
        cross_talk=sum(o.cross_talk for o in accepted),
        refused=len(outcomes) - len(accepted),
        reconnects=sum(o.reconnects for o in outcomes),
        rss_mib=[rss_mib(pid) for w in workers for pid in w.pids()],
    )


def measure(counts: tuple[int, ...], conversations: int) -> list[Round]:
    rounds: list[Round] = []
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-scale-")))
        url = stack.enter_context(fresh_database("sstools_bench"))
        superset_url = stack.enter_context(fake_superset_process(conversations))
        environments = environments_file(folder, superset_url, FakeSuperset())
        fleet = Fleet(url, folder, environments, extra_env=CAPS)
        usernames = [f"user{i}" for i in range(USERS)]
        for username in usernames:
            fleet.add_user(username)
        for n in counts:
            print(f"bench-scale: {n} worker(s), {conversations} conversations …", file=sys.stderr)
            workers = fleet.start(n)
            clean = False
            try:
                headers = [fleet.login(username) for username in usernames]
                rounds.append(asyncio.run(_round(workers, headers, conversations)))
                clean = rounds[-1].completed == conversations and not rounds[-1].reconnects
            finally:
                for worker in workers if not clean else []:  # why, before the folder goes
                    print(f"--- {worker.name}:\n{worker.tail()}", file=sys.stderr)
                for worker in workers:
                    worker.stop()
                fleet.members.clear()
            print(f"  {rounds[-1]}", file=sys.stderr)
    return rounds


def render(rounds: list[Round]) -> str:
    header = (
        "workers",
        "completed",
        "runs/s",
        "first event p50 / p99 (s)",
        "done p50 / p99 (s)",
        "lost",
        "duplicated",
        "cross-talk",
        "refused",
        "streams cut",
        "RSS per worker (MiB)",
    )
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rounds:
        cells = (
            str(r.workers),
            f"{r.completed}/{r.conversations}",
            f"{r.runs_per_s:.1f}",
            f"{r.first_event_p50:.2f} / {r.first_event_p99:.2f}",
            f"{r.done_p50:.2f} / {r.done_p99:.2f}",
            str(r.lost),
            str(r.duplicated),
            str(r.cross_talk),
            str(r.refused),
            str(r.reconnects),
            ", ".join(f"{m:.0f}" for m in r.rss_mib),
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def rows_of(rounds: list[Round]) -> list[Row]:
    base = next((r for r in rounds if r.workers == 1), rounds[0])
    rows: list[Row] = []
    for r in rounds:
        ratio = r.runs_per_s / base.runs_per_s if base.runs_per_s else None
        rows.append(
            Row(
                area="scale",
                metric=f"runs/s, {r.workers} worker(s), {r.conversations} conversations",
                measured=f"{r.runs_per_s:.1f}",
                baseline=f"1 worker: {base.runs_per_s:.1f}",
                ratio=ratio,
                goal="every run completes",
                met=r.completed == r.conversations,
            )
        )
        faults = r.lost + r.duplicated + r.cross_talk
        rows.append(
            Row(
                area="scale",
                metric=f"lost + duplicated + cross-talk events, {r.workers} worker(s)",
                measured=str(faults),
                baseline="—",
                ratio=None,
                goal="0",
                met=faults == 0,
            )
        )
    return rows


def rows() -> list[Row]:
    """For ``python -m bench``: the default sizes."""
    return rows_of(measure(WORKER_COUNTS, CONVERSATIONS))


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale")
    parser.add_argument("--conversations", type=int, default=CONVERSATIONS)
    parser.add_argument("--workers", type=int, nargs="*", default=list(WORKER_COUNTS))
    options = parser.parse_args()
    rounds = measure(tuple(options.workers), options.conversations)
    print(render(rounds))
    return 0 if all(row.met for row in rows_of(rounds)) else 1


if __name__ == "__main__":
    raise SystemExit(main())
