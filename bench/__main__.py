"""``make bench``: every goal as a ratio against its baseline, measured in this run, as one table.

``python -m bench [--only AREA ...] [--write docs/performance.md]``
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys
from datetime import UTC, datetime
from pathlib import Path

from bench.table import Row

# Each module's rows(); the order is the table's.
MODULES = (
    "bench.router",
    "bench.tokens",
    "bench.schema_size",
    "bench.retries",
    "bench.summarize",
    "bench.streams",
    "bench.cards",
    "bench.planner",
    "bench.deploys",
    "bench.peer",
    "bench.dashboard_page",
    "bench.dashboard_compare",
    "bench.drift",
    "bench.mcp",
    "bench.audit_page",
)


SCALE_SECTION = "## Several workers"


def machine() -> str:
    cores = os.cpu_count()
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    processor = platform.processor() or platform.machine()
    return f"{processor}, {cores} cores, {memory:.0f} GiB, Python {platform.python_version()}"


def render(rows: list[Row]) -> str:
    header = ("area", "metric", "measured", "baseline", "ratio", "goal", "met")
    cells = [
        (
            row.area,
            row.metric,
            row.measured,
            row.baseline,
            "—" if row.ratio is None else f"{row.ratio:.2f}×",
            row.goal,
            "yes" if row.met else "NO",
        )
        for row in rows
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell) + " |" for cell in cells]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--only", nargs="*", help="module names without 'bench.', e.g. router")
    parser.add_argument("--write", type=Path, help="also write the table to this Markdown file")
    parser.add_argument(
        "--requests-file",
        type=Path,
        help="the planner's rows for this file of requests (bench/data/requests.jsonl's format)",
    )
    options = parser.parse_args()
    chosen = [m for m in MODULES if not options.only or m.removeprefix("bench.") in options.only]
    rows: list[Row] = []
    for name in chosen:
        print(f"running {name} …", file=sys.stderr, flush=True)
        module = importlib.import_module(name)
        if name == "bench.planner" and options.requests_file is not None:
            rows += module.rows(options.requests_file)
        else:
            rows += module.rows()
    table = render(rows)
    print(table)
    if options.write:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        kept = ""  # `make bench-scale`'s section, written by hand from its output, stays
        if options.write.exists():
            previous = options.write.read_text(encoding="utf-8")
            kept = previous[previous.find(SCALE_SECTION) :] if SCALE_SECTION in previous else ""
        options.write.write_text(
            "# Performance\n\nThe last `make bench` table, measured on "
            f"{machine()} ({stamp}).\nEvery ratio is against a baseline measured in the same "
            "run.\n\n"
            f"{table}\n" + (f"\n{kept}" if kept else ""),
            encoding="utf-8",
        )
    return 0 if all(row.met for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
