"""AGTL-FR-006: the tool router on the labelled requests of ``bench/data/router_eval.jsonl``.

Each request is routed among the tools the hard filters leave for its context and role (the
``always`` tools are offered whatever the ranking says, for every method alike). A request is a
hit when one of its acceptable tools is offered. Recall and MRR are measured on the held-back
split, against BM25 alone (top 5, the method Superset's MCP service uses) and the embedding alone
(top 5); the ``tune`` split is printed on stderr (``--split tune``), the only one tuning looks at.
Routing time is measured twice: the router alone, and what real turns wait for it
(:mod:`bench.routing_turns`), where the embedding starts as the message arrives.
Run: ``python -m bench --only router``.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bench.routing_turns import turn_waits
from bench.table import Row
from sstools.agent.routing import router as routing
from sstools.agent.routing import semantic
from sstools.agent.tools import CATALOGUE
from sstools.testing.recorded import RouterCase, Split, router_cases

K = 5
RECALL_GOAL = 0.97
P95_GOAL_S = 0.015


Ranker = Literal["router", "hybrid", "bm25", "embedding"]


def offered(case: RouterCase, ranker: Ranker) -> tuple[list[str], list[str]]:
    """(what is offered, the candidates best first): ``router`` is the deployed router (hybrid,
    adaptive K); the others are their ranking's fixed top 5."""
    candidates = case.candidates()
    method: routing.Method = "hybrid" if ranker == "router" else ranker
    ranked = routing.ranking(case.text, candidates, method)
    names = [name for name, _ in ranked]
    if len(candidates) <= K:
        chosen = candidates
    elif ranker == "router":
        chosen = routing.cut(ranked, K)
    else:
        chosen = names[:K]
    always = [name for name in CATALOGUE if CATALOGUE[name].always]
    return chosen + always, names


@dataclass(frozen=True)
class Quality:
    recall: float
    mrr: float
    mean_offered: float
    misses: list[RouterCase]


def quality(split: Split, ranker: Ranker) -> Quality:
    hits, reciprocal, sizes, misses = 0, [], [], []
    for case in router_cases():
        if case.split != split:
            continue
        chosen, ranked = offered(case, ranker)
        sizes.append(len(chosen))
        if set(case.tools) & set(chosen):
            hits += 1
        else:
            misses.append(case)
        ranks = [ranked.index(tool) + 1 for tool in case.tools if tool in ranked]
        if ranks:  # a request only `show_capabilities` answers has no rank among candidates
            reciprocal.append(1 / min(ranks))
    total = len(sizes)
    return Quality(hits / total, statistics.fmean(reciprocal), statistics.fmean(sizes), misses)


def routing_times(split: Split, method: routing.Method) -> list[float]:
    """Seconds the deployed router takes per message where it ranks (more candidates than K),
    the message's embedding not started before: the router alone, on a quiet process."""
    router = routing.ToolRouter(method, K)
    spent = []
    for case in router_cases():
        tools = [CATALOGUE[name] for name in case.candidates()]
        if case.split != split or len(tools) <= K:
            continue
        semantic.QUERIES.clear()
        started = time.perf_counter()
        router(case.text, tools)
        spent.append(time.perf_counter() - started)
    return spent


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def report(split: Split) -> dict[Ranker, Quality]:
    """Every ranker on ``split``, with the misses on stderr (tuning reads the tune split's)."""
    rankers: tuple[Ranker, ...] = ("router", "hybrid", "bm25", "embedding")
    results = {ranker: quality(split, ranker) for ranker in rankers}
    for ranker, result in results.items():
        print(
            f"{split} {ranker}: recall {result.recall:.3f} MRR {result.mrr:.3f} "
            f"offered {result.mean_offered:.2f}",
            file=sys.stderr,
        )
    if split == "tune":
        for case in results["router"].misses:
            print(f"  miss: {case.text!r} {case.tools}", file=sys.stderr)
    return results


def rows() -> list[Row]:
    routing.indexes()
    report("tune")
    held = report("heldout")
    router, bm25, embedding = held["router"], held["bm25"], held["embedding"]
    routing_times("heldout", "hybrid")  # warm-up: the first pass pays for page faults
    hybrid_s = routing_times("heldout", "hybrid")
    bm25_s = routing_times("heldout", "bm25")
    waits = turn_waits()
    # Wall time on a shared machine is CPU time stretched by the load: say what it was.
    load = f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    area = "router"
    offered_note = f"hybrid, adaptive K (mean {router.mean_offered - 1:.1f} + capabilities)"
    return [
        Row(
            area,
            f"recall@5 held-back ({offered_note})",
            f"{router.recall:.3f}",
            f"BM25 top-5: {bm25.recall:.3f}",
            router.recall / bm25.recall,
            f"≥ {RECALL_GOAL} and > BM25",
            router.recall >= RECALL_GOAL and router.recall > bm25.recall,
        ),
        Row(
            area,
            "recall@5 held-back vs the embedding alone",
            f"{router.recall:.3f}",
            f"embedding top-5: {embedding.recall:.3f}",
            router.recall / embedding.recall,
            "≥ embedding",
            router.recall >= embedding.recall,
        ),
        Row(
            area,
            "MRR held-back vs BM25",
            f"{router.mrr:.3f}",
            f"BM25: {bm25.mrr:.3f}",
            router.mrr / bm25.mrr,
            "> BM25",
            router.mrr > bm25.mrr,
        ),
        Row(
            area,
            "MRR held-back vs the embedding alone",
            f"{router.mrr:.3f}",
            f"embedding: {embedding.mrr:.3f}",
            router.mrr / embedding.mrr,
            "≥ embedding",
            router.mrr >= embedding.mrr,
        ),
        Row(
            area,
            f"router alone per message, embedding not started before ({load})",
            f"p50 {percentile(hybrid_s, 0.5) * 1000:.1f} ms, "
            f"p95 {percentile(hybrid_s, 0.95) * 1000:.1f} ms",
            f"BM25 router: p95 {percentile(bm25_s, 0.95) * 1000:.2f} ms",
            percentile(hybrid_s, 0.95) / percentile(bm25_s, 0.95),
            "—",
            True,
        ),
        Row(
            area,
            f"routing wait per turn, {waits.turns} sequential real turns (embedding started on"
            f" arrival; {waits.within(P95_GOAL_S):.0%} within {P95_GOAL_S * 1000:.0f} ms)",
            f"p50 ≤ {waits.percentile(0.5) * 1000:g} ms, "
            f"p95 ≤ {waits.percentile(0.95) * 1000:g} ms",
            f"router alone: p95 {percentile(hybrid_s, 0.95) * 1000:.1f} ms",
            waits.percentile(0.95) / percentile(hybrid_s, 0.95),
            f"p95 ≤ {P95_GOAL_S * 1000:.0f} ms",
            waits.within(P95_GOAL_S) >= 0.95,
        ),
    ]
