"""SC-004 / AGTL-FR-003: what enters the model's context, structured summary vs the naive hard cut.

Prints, over realistic tool answers: characters entering the context (vs the raw answer), the
share that is still valid JSON, the items a model can still read, and the cost per call.
Run: ``make bench``.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

from sstools.agent.summarize import LIMIT, summarize

rng = random.Random(35)  # noqa: S311 - benchmark data, not secrets


def dashboards(n: int) -> dict[str, Any]:
    return {
        "items": [
            {
                "id": i,
                "title": f"Отчёт {i} по энергопотреблению региона",
                "slug": None,
                "published": rng.random() > 0.2,
                "changed_on": "2026-11-29T23:28:43Z",
                "url": f"http://127.0.0.1:8081/superset/dashboard/{i}/",
            }
            for i in range(n)
        ],
        "total": n,
        "page": 0,
        "page_size": n,
    }


def sql_rows(n: int) -> dict[str, Any]:
    return {
        "columns": ["day", "region", "sector", "consumption_mwh"],
        "rows": [
            {
                "day": f"2025-01-{1 + i % 28:02d}",
                "region": "Москва",
                "sector": "Население",
                "consumption_mwh": round(rng.uniform(10, 99), 2),
            }
            for i in range(n)
        ],
        "row_count": n,
        "limited": False,
    }


def dataset(columns: int) -> dict[str, Any]:
    return {
        "id": 1,
        "name": "energy_consumption",
        "columns": [{"name": f"column_{i}", "type": "REAL"} for i in range(columns)],
        "charts": [{"id": i, "name": f"График {i}"} for i in range(40)],
        "dashboards": [{"id": i, "title": f"Дашборд {i}"} for i in range(25)],
        "review": {"status": "unreviewed"},
    }


def text(sentences: int) -> str:
    return " ".join(f"Предложение номер {i} о состоянии дашборда." for i in range(sentences))


CASES: list[tuple[str, Any]] = [
    ("search 300 dashboards", dashboards(300)),
    ("search 40 dashboards", dashboards(40)),
    ("SQL 1000 rows", sql_rows(1000)),
    ("SQL 20 rows", sql_rows(20)),
    ("dataset 150 columns", dataset(150)),
    ("long text", text(400)),
    ("small answer", {"status": "ok", "id": 7}),
]


def naive(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)[:LIMIT]


def readable_items(out: str) -> int:
    try:
        data = json.loads(out)
    except ValueError:
        return 0
    if isinstance(data, dict):
        return max((len(v) for v in data.values() if isinstance(v, list)), default=1)
    return len(data) if isinstance(data, list) else 1


def timed(function: Callable[[Any], str], payload: Any, repeat: int = 200) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        function(payload)
    return (time.perf_counter() - started) / repeat * 1e6


def main() -> None:
    print(
        f"{'answer':24} {'raw':>7} {'naive':>6} {'summary':>8} {'valid n/s':>9} "
        f"{'items n/s':>11} {'µs n/s':>14}"
    )
    raw_total = summary_total = valid_naive = valid_summary = 0
    for name, payload in CASES:
        raw = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        cut, summary = naive(payload), summarize(payload)
        ok_naive = readable_items(cut) > 0
        ok_summary = readable_items(summary) > 0
        raw_total, summary_total = raw_total + len(raw), summary_total + len(summary)
        valid_naive += ok_naive
        valid_summary += ok_summary
        print(
            f"{name:24} {len(raw):7} {len(cut):6} {len(summary):8} "
            f"{int(ok_naive)}/{int(ok_summary):<7} "
            f"{readable_items(cut):4}/{readable_items(summary):<6} "
            f"{timed(naive, payload):6.0f}/{timed(summarize, payload):<7.0f}"
        )
    print(
        f"\ncontext size vs raw answers: {summary_total / raw_total:.2f}× "
        f"({1 - summary_total / raw_total:.0%} smaller; SC-004 asks ≥ 30%)"
    )
    print(f"valid JSON: naive cut {valid_naive}/{len(CASES)}, summary {valid_summary}/{len(CASES)}")


if __name__ == "__main__":
    main()
