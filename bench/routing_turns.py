"""AGTL-FR-006: how long a real turn waits for the router, as the running service records it.

The app runs in its own process (``bench.app_process``) with a scripted model that answers at
once; each held-back request of ``bench/data/router_eval.jsonl`` is posted, with its context, to a
conversation of its own, one after another as a person would, and the turn is followed to
``done``. The router's own histogram (``sstools_router_seconds`` on ``/metrics``, what an operator
watches) then says how long the turns waited for it: the embedding starts when the message
arrives, and the ranking waits for whatever of it is left. Its buckets include 15 ms, so "95 % of
turns within 15 ms" is exact; the percentiles are read as the bucket they fall in.
"""

from __future__ import annotations

import asyncio
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from bench.app_process import AppProcess, app_process
from bench.streams import Received, listen, new_conversation, post, until
from sstools.testing.recorded import RouterCase, router_cases

K = 5
HISTOGRAM = "sstools_router_seconds"


@dataclass(frozen=True)
class Waits:
    """The router histogram's cumulative counts: (upper bound in seconds, turns within it)."""

    buckets: list[tuple[float, int]]

    @property
    def turns(self) -> int:
        return self.buckets[-1][1] if self.buckets else 0

    def within(self, seconds: float) -> float:
        """The share of turns that waited at most ``seconds``, which must be a bucket bound."""
        for bound, count in self.buckets:
            if math.isclose(bound, seconds):
                return count / self._turns()
        raise ValueError(f"{seconds} s is not a bucket bound of {HISTOGRAM}")

    def percentile(self, share: float) -> float:
        """The upper bound of the bucket that holds this percentile."""
        total = self._turns()
        return next(bound for bound, count in self.buckets if count >= share * total)

    def _turns(self) -> int:
        if not self.turns:
            raise ValueError(f"no turn was routed: {HISTOGRAM} is empty")
        return self.turns


def routed_cases() -> list[RouterCase]:
    """The held-back requests the router ranks (more candidates than K)."""
    return [c for c in router_cases() if c.split == "heldout" and len(c.candidates()) > K]


async def waits(server: AppProcess, cases: list[RouterCase]) -> Waits:
    async with httpx.AsyncClient(timeout=60) as client:
        for case in cases:
            conversation = await new_conversation(client, server)
            seen = Received()
            listener = asyncio.create_task(listen(client, server, conversation, seen))
            await seen.opened.wait()
            await post(client, server, conversation, case.text, case.context().public())
            await until(seen, "done", 1)
            listener.cancel()
            await asyncio.gather(listener, return_exceptions=True)
        exposition = (await client.get(f"{server.url}/metrics")).text
    buckets = [
        (float(sample.labels["le"]), int(sample.value))
        for family in text_string_to_metric_families(exposition)
        if family.name == HISTOGRAM
        for sample in family.samples
        if sample.name == f"{HISTOGRAM}_bucket"
    ]
    return Waits(sorted(buckets))


async def measure() -> Waits:
    with tempfile.TemporaryDirectory() as folder:
        async with app_process(Path(folder), "answer", caps=1000) as server:
            return await waits(server, routed_cases())


def turn_waits() -> Waits:
    return asyncio.run(measure())


if __name__ == "__main__":
    result = turn_waits()
    print(
        f"{result.turns} turns: p50 ≤ {result.percentile(0.5) * 1000:g} ms, "
        f"p95 ≤ {result.percentile(0.95) * 1000:g} ms, within 15 ms {result.within(0.015):.0%}"
    )
