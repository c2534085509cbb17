"""One row per goal: what was measured, against which baseline measured in the same run, the goal.

Every benchmark module exposes ``rows() -> list[Row]``; ``python -m bench`` prints them as one
table (and ``--write docs/performance.md`` keeps it with the machine it ran on).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    """``ratio`` is measured ÷ baseline (None where the row is an absolute figure)."""

    area: str  # e.g. "router", "SC-003", "SSE"
    metric: str  # what is measured, e.g. "recall@5 (held-back split)"
    measured: str  # the figure as printed, e.g. "0.98"
    baseline: str  # the baseline and its figure, e.g. "BM25 top-5: 0.91"
    ratio: float | None
    goal: str  # e.g. "≥ 0.97 and > BM25", "≤ 0.70×"
    met: bool
