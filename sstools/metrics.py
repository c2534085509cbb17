"""The service's Prometheus metrics, defined once; ``GET /metrics`` exposes them.

Each worker process counts its own; with several workers, scrape each one (or set
``PROMETHEUS_MULTIPROC_DIR``, which prometheus_client merges across processes).
"""

from __future__ import annotations

from datetime import UTC, datetime

from prometheus_client import Counter, Gauge, Histogram

TOOL_CALLS = Counter(
    "sstools_tool_calls_total",
    "Agent tool calls, by tool and outcome (ok, error, refused, timeout, …).",
    ["tool", "outcome"],
)
TOOL_RETRIES = Counter(
    "sstools_tool_retries_total", "Read tool calls retried after a transient failure.", ["tool"]
)
TOOL_SECONDS = Histogram(
    "sstools_tool_seconds", "Time a tool call took, retries included.", ["tool"]
)
CONFIRMATIONS = Counter(
    "sstools_confirmations_total",
    "Confirmations by decision (asked, approve, deny, edit, expired).",
    ["decision"],
)
APPROVALS = Counter(
    "sstools_approvals_total",
    "Approval cards by the target's stage (dev, staging, prod; none: a git write) and decision: "
    "asked, first_approved (the requester's, a second person still needed), approved (the write "
    "may run), denied, edited, target_moved, expired.",
    ["stage", "decision"],
)
APPROVAL_SECONDS = Histogram(
    "sstools_approval_decision_seconds",
    "Time from a card being asked to the decision that closed it (approved, denied, edited, "
    "target_moved; an expiry is nobody's decision), by the target's stage.",
    ["stage"],
    buckets=(1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 28800, 86400),
)
# livesum: with PROMETHEUS_MULTIPROC_DIR, the sum over the workers alive (ignored otherwise).
ACTIVE_STREAMS = Gauge(
    "sstools_active_streams",
    "Agent event streams open in this worker.",
    multiprocess_mode="livesum",
)
ROUTER_SECONDS = Histogram(
    "sstools_router_seconds",
    "Time a model call that ranks waited for the tool router, its message's embedding included.",
    buckets=(0.001, 0.0025, 0.005, 0.0075, 0.01, 0.0125, 0.015, 0.02, 0.025, 0.05, 0.1, 0.25),
)
SUPERSET_LOGINS = Counter(
    "sstools_superset_logins_total",
    "Logins of the service account, by environment (a session renewed by refresh is not one).",
    ["env_id"],
)


def count_approval(
    stage: str | None,
    decision: str,
    asked_at: datetime | None = None,
    decided_at: datetime | None = None,
) -> None:
    """One card's step in ``sstools_approvals_total``; with both moments, the time it took too."""
    label = stage or "none"
    APPROVALS.labels(label, decision).inc()
    if asked_at is not None and decided_at is not None:
        took = _aware(decided_at) - _aware(asked_at)
        APPROVAL_SECONDS.labels(label).observe(max(took.total_seconds(), 0.0))


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # SQLite keeps them naive
