"""SC-003 by simulation: read failures with 10 % transient 5xx injected, retry-once vs no retry.

Every call goes through the real :class:`ToolExecutor` (request building, retry, audit on a real
SQLite file) to a fault-injecting transport: each request, independently, gets a 5xx with
probability 10 % from a seeded RNG. The baseline is the same executor with ``read_attempts=1``.
Writes run through the retrying executor too; the server counts how often it saw each one.
The retry-once figures are also read back through ``sstools report`` and must agree.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import httpx

from bench.table import Row
from sstools.agent.context import ObjectType
from sstools.agent.executor import Outcome, ToolExecutor
from sstools.agent.tools import CATALOGUE, CallScope
from sstools.logs import configure_logging
from sstools.operations_report import operations_report
from sstools.storage.db import create_engine, migrate, session_factory

READ_CALLS = 2_000
WRITE_CALLS = 500
FAULT_RATE = 0.10
SEED = 35
# The read tools a chat on a dashboard uses most, called in turn.
READS: tuple[tuple[str, dict[str, str]], ...] = (
    ("search_dashboards", {}),
    ("get_health_summary", {}),
    ("list_environments", {}),
)
WRITE = ("deploy_dashboard", {"target_env_id": "prod"})
SCOPE = CallScope(env_id="ss-dev", object_type=ObjectType.dashboard, object_id=10)


class FlakyServer:
    """Answers 200 with a small body, or — 10 % of requests, seeded — 500, 502 or 503."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)  # noqa: S311 - fault injection, not secrets
        self.writes = 0  # POSTs received; the bench makes one write call at a time
        self.sent_per_write: list[int] = []  # requests each write call sent

    def handle(self, request: httpx.Request) -> httpx.Response:
        if request.method != "GET":
            self.writes += 1
        if self._rng.random() < FAULT_RATE:
            return httpx.Response(self._rng.choice((500, 502, 503)), json={"detail": "injected"})
        return httpx.Response(200, json={"items": [{"id": 1, "title": "Energy KPIs"}], "total": 1})


async def _run(folder: Path, name: str, read_attempts: int) -> tuple[int, int, FlakyServer, float]:
    """(failed reads, failed writes, the server, failures avoided as the report reads them)."""
    url = f"sqlite:///{folder / f'{name}.db'}"
    migrate(url)
    engine = create_engine(url)
    server = FlakyServer(SEED)
    executor = ToolExecutor(
        base_url="http://tools.bench",
        transport=httpx.MockTransport(server.handle),
        timeout_s=5,
        retry_wait_s=0,
        read_attempts=read_attempts,
        sessions=session_factory(engine),
    )
    failed_reads = failed_writes = 0
    try:
        for number in range(READ_CALLS):
            tool, args = READS[number % len(READS)]
            result = await _call(executor, tool, args)
            failed_reads += result is not Outcome.ok
        for _ in range(WRITE_CALLS):
            before = server.writes
            result = await _call(executor, *WRITE)
            server.sent_per_write.append(server.writes - before)
            failed_writes += result is not Outcome.ok
        async with session_factory(engine)() as session:
            report = await operations_report(session, since=datetime(2000, 1, 1, tzinfo=UTC))
    finally:
        await executor.aclose()
        await engine.dispose()
    if (report.reads.failed, report.writes.retried) != (failed_reads, 0):
        raise AssertionError(f"sstools report disagrees with the run: {report}")
    return failed_reads, failed_writes, server, report.reads.failures_avoided or 0.0


async def _call(executor: ToolExecutor, tool: str, args: dict[str, str]) -> Outcome:
    spec = CATALOGUE[tool]
    result = await executor.execute(
        spec,
        spec.args_model.model_validate(args),
        SCOPE,
        token="bench",  # noqa: S106 - the fault server checks no token
        username="bench",
    )
    return result.outcome


def rows() -> list[Row]:
    configure_logging("WARNING")  # 5,000 audit lines would bury the table
    # The audit log on tmpfs where there is one: the bench measures retries, not fsync.
    memory = "/dev/shm" if Path("/dev/shm").is_dir() else None  # noqa: S108
    with tempfile.TemporaryDirectory(prefix="sstools-bench-retries-", dir=memory) as folder:
        retried, _, server, avoided = asyncio.run(_run(Path(folder), "retry-once", 2))
        baseline, _, _, _ = asyncio.run(_run(Path(folder), "no-retry", 1))
    with_retry, without = retried / READ_CALLS, baseline / READ_CALLS
    ratio = with_retry / without
    sent = sum(server.sent_per_write)
    return [
        Row(
            area="SC-003",
            metric=f"read failures, {READ_CALLS:,} calls, {FAULT_RATE:.0%} 5xx injected",
            measured=f"retry once: {with_retry:.2%} (report: {avoided:.0%} avoided)",
            baseline=f"no retry: {without:.2%}",
            ratio=ratio,
            goal="≤ 0.20× (−80 %)",
            met=ratio <= 0.20,
        ),
        Row(
            area="SC-003",
            metric=f"requests sent per write call, {WRITE_CALLS} calls, {FAULT_RATE:.0%} 5xx",
            measured=f"{sent / WRITE_CALLS:.2f} (max {max(server.sent_per_write)})",
            baseline="1 (never retried)",
            ratio=sent / WRITE_CALLS,
            goal="1.00× (retried 0 times)",
            met=sent == WRITE_CALLS and set(server.sent_per_write) == {1},
        ),
    ]
