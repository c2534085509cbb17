"""SSE: 1,000 concurrent event streams on one worker, and POST …/messages → the first event.

The real app runs in a uvicorn subprocess of its own (one worker, a temporary SQLite database, a
scripted model that answers at once, so no Superset and no model time), and everything is measured
from outside with an asyncio httpx client:

- delivery latency: from the moment the server wrote an event (the stored row's ``created_at``,
  the server's wall clock, taken just before its INSERT) to the moment its ``data:`` line reached
  the client (this machine's same wall clock). The events are the real ones a message produces
  (``run_started``, the answer, ``done``), one message per conversation, paced; baseline: the same
  with a single stream open;
- memory per stream: the server's RSS with 1,000 streams open minus its RSS before, ÷ 1,000;
- POST → first event: a stream is open on the conversation; from sending the POST to its
  ``run_started`` arriving, over sequential messages; baseline: the POST's own round trip;
- a neighbour's requests: another user's reads, 4 at a time, once one user has asked for 200
  streams at once against the default per-user caps (10 held, 190 refused), and, for the record,
  while it asks (the neighbour then waits behind 200 requests on one worker); baseline: the same
  reads with nothing open.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.app_process import AppProcess, app_process
from bench.table import Row

STREAMS = 1000
MESSAGES_PER_SECOND = 20.0  # paced: this measures delivery, not how many runs a worker sustains
FIRST_EVENT_MESSAGES = 200
BASELINE_STREAMS = 10  # the baseline: the same paced messages with only a few streams open
IDLE_S = 10.0
OPEN_TIMEOUT_S = 300.0
FIRST_EVENT_GOAL_MS = 50.0
DELIVERY_GOAL_MS = 100.0
MEMORY_GOAL_KIB = 100.0
IDLE_CPU_GOAL = 0.05
FLOOD_STREAMS = 200  # one user's streams opened at once: the default caps keep 10 of them
FLOOD_CONVERSATIONS = 10
NEIGHBOUR_REQUESTS = 200
NEIGHBOUR_GOAL_MS = 500.0


@dataclass
class Received:
    """What a stream saw: (seq, type, wall-clock arrival) per event, and a wake-up per arrival."""

    events: list[tuple[int, str, float]] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    opened: asyncio.Event = field(default_factory=asyncio.Event)


async def listen(
    client: httpx.AsyncClient, server: AppProcess, conversation: str, seen: Received
) -> None:
    """One SSE stream, until cancelled: records each event's seq, type and arrival time."""
    url = f"{server.url}/api/agent/conversations/{conversation}/events"
    async with client.stream("GET", url, headers=server.headers, timeout=None) as response:
        response.raise_for_status()
        seen.opened.set()
        seq = 0
        async for line in response.aiter_lines():
            if line.startswith("id:"):
                seq = int(line[3:].strip())
            elif line.startswith("data:"):
                arrival = time.time()
                kind = line.split('"type": "', 1)[1].split('"', 1)[0]
                seen.events.append((seq, kind, arrival))
                seen.arrived.set()


async def new_conversation(client: httpx.AsyncClient, server: AppProcess) -> str:
    response = await client.post(f"{server.url}/api/agent/conversations", headers=server.headers)
    response.raise_for_status()
    conversation: str = response.json()["id"]
    return conversation


async def post(
    client: httpx.AsyncClient,
    server: AppProcess,
    conversation: str,
    text: str,
    uicontext: dict[str, Any] | None = None,
) -> None:
    response = await client.post(
        f"{server.url}/api/agent/conversations/{conversation}/messages",
        headers=server.headers,
        json={"text": text, "uicontext": uicontext},
    )
    response.raise_for_status()


async def until(seen: Received, kind: str, count: int) -> None:
    while sum(1 for _, k, _ in seen.events if k == kind) < count:
        seen.arrived.clear()
        await asyncio.wait_for(seen.arrived.wait(), 30)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def all_open(seen: Iterable[Received], listeners: list[asyncio.Task[None]]) -> None:
    """Until every stream has its response headers; a stream that failed fails the bench."""

    async def every_one() -> None:
        await asyncio.gather(*(s.opened.wait() for s in seen))

    opened = asyncio.create_task(every_one())
    done, _ = await asyncio.wait(
        [opened, *listeners], timeout=OPEN_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED
    )
    if opened not in done:
        opened.cancel()
        failed = [t.exception() for t in listeners if t.done() and not t.cancelled()]
        raise RuntimeError(f"streams did not all open: {failed[:3]}")


@dataclass(frozen=True)
class Crowd:
    latencies_ms: list[float]  # every event's, written → arrived
    rss_per_stream_kib: int
    idle_cpu: float  # the server's CPU time per second while every stream waits


async def delivery(server: AppProcess, streams: int, messages: int) -> Crowd:
    """``streams`` streams on as many conversations; ``messages`` paced messages round-robin."""
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        conversations = [await new_conversation(client, server) for _ in range(streams)]
        await asyncio.sleep(1)
        before = server.rss_kib()
        seen = {c: Received() for c in conversations}
        listeners = [asyncio.create_task(listen(client, server, c, seen[c])) for c in conversations]
        await all_open(seen.values(), listeners)
        await asyncio.sleep(2)  # every stream has replayed and is waiting
        rss_per_stream = (server.rss_kib() - before) // streams
        cpu_before, idle_started = server.cpu_seconds(), time.monotonic()
        await asyncio.sleep(IDLE_S)
        idle_cpu = (server.cpu_seconds() - cpu_before) / (time.monotonic() - idle_started)
        started = time.monotonic()
        for number in range(messages):
            await asyncio.sleep(max(0.0, started + number / MESSAGES_PER_SECOND - time.monotonic()))
            conversation = conversations[number % streams]
            await post(client, server, conversation, f"вопрос {number}")
        await asyncio.gather(
            *(
                until(seen[c], "done", messages // streams + (i < messages % streams))
                for i, c in enumerate(conversations)
            )
        )
        for task in listeners:
            task.cancel()
        await asyncio.gather(*listeners, return_exceptions=True)
    written = {(c, seq): at for c, seq, _, at in server.events_written()}
    latencies = [
        (arrival - written[(c, seq)]) * 1000
        for c, s in seen.items()
        for seq, _, arrival in s.events
    ]
    return Crowd(latencies, rss_per_stream, idle_cpu)


async def first_event(server: AppProcess, messages: int) -> tuple[list[float], list[float]]:
    """POST → run_started on an open stream, and the POST's own time, in ms, per message."""
    async with httpx.AsyncClient(timeout=60) as client:
        conversation = await new_conversation(client, server)
        seen = Received()
        listener = asyncio.create_task(listen(client, server, conversation, seen))
        await seen.opened.wait()
        firsts: list[float] = []
        posts: list[float] = []
        for number in range(messages):
            sent = time.time()
            await post(client, server, conversation, f"вопрос {number}")
            posts.append((time.time() - sent) * 1000)
            await until(seen, "run_started", number + 1)
            arrival = next(a for _, k, a in reversed(seen.events) if k == "run_started")
            firsts.append((arrival - sent) * 1000)
            await until(seen, "done", number + 1)
        listener.cancel()
        await asyncio.gather(listener, return_exceptions=True)
    return firsts, posts


async def neighbour_reads(server: AppProcess, requests: int) -> list[float]:
    """Another user reading their conversation, 4 requests at a time: each one's time in ms."""
    latencies: list[float] = []
    async with httpx.AsyncClient(timeout=60) as client:
        created = await client.post(
            f"{server.url}/api/agent/conversations", headers=server.neighbour_headers
        )
        url = f"{server.url}/api/agent/conversations/{created.raise_for_status().json()['id']}"

        async def one_at_a_time(count: int) -> None:
            for _ in range(count):
                sent = time.perf_counter()
                (await client.get(url, headers=server.neighbour_headers)).raise_for_status()
                latencies.append((time.perf_counter() - sent) * 1000)

        await asyncio.gather(*(one_at_a_time(requests // 4) for _ in range(4)))
    return latencies


@dataclass(frozen=True)
class Flood:
    opening_ms: list[float]  # the neighbour's reads while the streams are being opened
    held_ms: list[float]  # and once every one is answered, those allowed held open
    statuses: Counter[int]  # what the streams got


async def flooded(server: AppProcess, streams: int, requests: int) -> Flood:
    """The neighbour's reads while the bench user opens ``streams`` streams at once, then while
    it holds those the caps allow."""
    statuses: Counter[int] = Counter()
    # One socket per stream, as that many browser tabs would have.
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client, AsyncExitStack() as held:
        conversations = [await new_conversation(client, server) for _ in range(FLOOD_CONVERSATIONS)]

        async def open_one(conversation: str) -> None:
            url = f"{server.url}/api/agent/conversations/{conversation}/events"
            stream = client.stream("GET", url, headers=server.headers)
            statuses[(await held.enter_async_context(stream)).status_code] += 1

        flood = asyncio.gather(
            *(open_one(conversations[i % len(conversations)]) for i in range(streams))
        )
        opening = await neighbour_reads(server, requests)
        await flood
        holding = await neighbour_reads(server, requests)
    return Flood(opening, holding, statuses)


async def measure() -> list[Row]:
    with tempfile.TemporaryDirectory() as folder:
        async with app_process(Path(folder), "answer", caps=2 * STREAMS) as server:
            firsts, posts = await first_event(server, FIRST_EVENT_MESSAGES)
            few = await delivery(server, BASELINE_STREAMS, FIRST_EVENT_MESSAGES)
            crowd = await delivery(server, STREAMS, STREAMS)
    with tempfile.TemporaryDirectory() as folder:
        async with app_process(Path(folder), "answer") as server:  # the default caps
            quiet = await neighbour_reads(server, NEIGHBOUR_REQUESTS)
            flood = await flooded(server, FLOOD_STREAMS, NEIGHBOUR_REQUESTS)
    if set(flood.statuses) != {200, 429}:
        raise RuntimeError(f"the flood's streams got {dict(flood.statuses)}, not 200 and 429")
    held_p99, quiet_p99 = percentile(flood.held_ms, 0.99), percentile(quiet, 0.99)
    first_p95, post_p95 = percentile(firsts, 0.95), percentile(posts, 0.95)
    crowd_p99, few_p99 = percentile(crowd.latencies_ms, 0.99), percentile(few.latencies_ms, 0.99)
    return [
        Row(
            area="SSE",
            metric=f"POST …/messages → first event on an open stream, p95 ({len(firsts)} messages)",
            measured=f"p50 {statistics.median(firsts):.0f} ms, p95 {first_p95:.0f} ms",
            baseline=f"the POST: p50 {statistics.median(posts):.0f} ms, p95 {post_p95:.0f} ms",
            ratio=first_p95 / post_p95,
            goal=f"p95 ≤ {FIRST_EVENT_GOAL_MS:.0f} ms",
            met=first_p95 <= FIRST_EVENT_GOAL_MS,
        ),
        Row(
            area="SSE",
            metric=(
                f"delivery p99, {STREAMS} concurrent streams on one worker "
                f"({len(crowd.latencies_ms)} events, {MESSAGES_PER_SECOND:.0f} messages/s)"
            ),
            measured=f"p99 {crowd_p99:.0f} ms (p50 {statistics.median(crowd.latencies_ms):.0f} ms)",
            baseline=f"{BASELINE_STREAMS} streams: p99 {few_p99:.0f} ms",
            ratio=crowd_p99 / few_p99,
            goal=f"p99 ≤ {DELIVERY_GOAL_MS:.0f} ms",
            met=crowd_p99 <= DELIVERY_GOAL_MS,
        ),
        Row(
            area="SSE",
            metric=f"server memory per open stream (RSS delta ÷ {STREAMS})",
            measured=f"{crowd.rss_per_stream_kib} KiB",
            baseline="—",
            ratio=None,
            goal=f"≤ {MEMORY_GOAL_KIB:.0f} KiB",
            met=crowd.rss_per_stream_kib <= MEMORY_GOAL_KIB,
        ),
        Row(
            area="SSE",
            metric=f"server CPU while {STREAMS} streams wait (share of one core)",
            measured=f"{crowd.idle_cpu:.0%}",
            baseline=f"{BASELINE_STREAMS} streams: {few.idle_cpu:.0%}",
            ratio=crowd.idle_cpu / few.idle_cpu if few.idle_cpu else None,
            goal=f"≤ {IDLE_CPU_GOAL:.0%}",
            met=crowd.idle_cpu <= IDLE_CPU_GOAL,
        ),
        Row(
            area="SSE",
            metric=(
                f"another user's reads while one user asks for {FLOOD_STREAMS} streams "
                f"(default caps; {len(flood.held_ms)} reads, 4 at a time), p99"
            ),
            measured=(
                f"p99 {held_p99:.0f} ms; {flood.statuses[200]} held, "
                f"{flood.statuses[429]} refused; while they were being opened: "
                f"p99 {percentile(flood.opening_ms, 0.99):.0f} ms"
            ),
            baseline=f"nothing open: p99 {quiet_p99:.0f} ms",
            ratio=held_p99 / quiet_p99,
            goal=f"p99 ≤ {NEIGHBOUR_GOAL_MS:.0f} ms",
            met=held_p99 <= NEIGHBOUR_GOAL_MS,
        ),
    ]


def rows() -> list[Row]:
    return asyncio.run(measure())


if __name__ == "__main__":
    for row in rows():
        print(row)
