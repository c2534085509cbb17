"""``sstools report``: the spec's SC-003 and SC-004 figures, from the audit log's tool calls.

SC-003 (transient failures): a read whose first attempt failed transiently (5xx, connection
refused) was *seen*; it *recovered* if the call still ended ``ok``, else it *surfaced* to the
model. Without the retry every recovered read would have failed too, so the failure rate
without it is (failed + recovered) ÷ reads. Writes are never retried: ``retried`` must be 0.
SC-004 (answer size): per tool, over the calls that ended ``ok``, the mean characters of the
raw answer against the mean characters that entered the model. Approvals per stage: see
:mod:`sstools.approval_report`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sstools import clock
from sstools.approval_report import StageApprovals, approval_figures, render_lines
from sstools.storage.models import AuditEntry

_SPAN = re.compile(r"^(\d+)([dhm])$")
_UNITS = {"d": "days", "h": "hours", "m": "minutes"}


def parse_span(text: str) -> timedelta:
    """``7d`` / ``24h`` / ``30m`` → a timedelta; anything else is a ValueError saying so."""
    match = _SPAN.match(text.strip())
    if match is None or int(match.group(1)) == 0:
        raise ValueError(f"expected a span such as 7d, 24h or 30m, got {text!r}")
    return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


class ReadFigures(BaseModel):
    """SC-003 for reads."""

    calls: int
    transient_seen: int  # the first attempt failed transiently
    recovered: int  # … and the call still ended ok
    surfaced: int  # … and it did not: the model saw a failure
    failed: int  # every read that did not end ok, whatever the cause
    failure_rate: float  # failed ÷ calls
    failure_rate_without_retry: float  # (failed + recovered) ÷ calls
    failures_avoided: float | None  # recovered ÷ (failed + recovered); None when nothing failed


class WriteFigures(BaseModel):
    calls: int
    transient_failures: int  # reported to the model as they came: a write is never re-sent
    retried: int  # calls sent more than once; anything but 0 is a bug


class ToolSizes(BaseModel):
    """SC-004 for one tool (or ``*``, every answer): mean characters raw vs entering the model."""

    tool: str
    answers: int
    mean_raw_chars: float
    mean_model_chars: float
    ratio: float | None  # model ÷ raw


class OperationsReport(BaseModel):
    since: datetime
    until: datetime
    reads: ReadFigures
    writes: WriteFigures
    sizes: list[ToolSizes]  # per tool by name, then ``*``
    approvals: list[StageApprovals]  # per stage: dev, staging, prod, then none and unknown


def _ratio(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def _sizes(tool: str, pairs: list[tuple[int, int]]) -> ToolSizes:
    raw = sum(pair[0] for pair in pairs) / len(pairs)
    model = sum(pair[1] for pair in pairs) / len(pairs)
    return ToolSizes(
        tool=tool,
        answers=len(pairs),
        mean_raw_chars=raw,
        mean_model_chars=model,
        ratio=_ratio(model, raw),
    )


def _transient_failures(detail: dict[str, Any]) -> int:
    if "transient_failures" in detail:
        return int(detail["transient_failures"])
    # Entries written before the count existed: a read was only ever re-sent after one.
    return max(int(detail.get("attempts") or 0) - 1, 0)


async def operations_report(
    session: AsyncSession,
    since: datetime,
    until: datetime | None = None,
    stages: Mapping[str, str] | None = None,
) -> OperationsReport:
    """The figures over the tool calls audited and the cards asked in ``[since, until)`` (until:
    now); ``stages``: each configured environment's stage, for the domain API's held writes."""
    until = until or clock.now()
    rows = await session.execute(
        select(AuditEntry.outcome, AuditEntry.detail).where(
            AuditEntry.action == "tool_call", AuditEntry.at >= since, AuditEntry.at < until
        )
    )
    reads = seen = recovered = failed = 0
    writes = write_transients = retried_writes = 0
    answers: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for outcome, detail in rows:
        ok = outcome == "ok"
        transients = _transient_failures(detail)
        if detail.get("kind") == "write":
            writes += 1
            write_transients += transients
            retried_writes += int(detail.get("attempts") or 0) > 1
        else:
            reads += 1
            failed += not ok
            seen += transients > 0
            recovered += transients > 0 and ok
        if ok:
            sizes = (int(detail.get("raw_size") or 0), int(detail.get("summarized_size") or 0))
            answers[str(detail.get("tool"))].append(sizes)
    every = [pair for tool in sorted(answers) for pair in answers[tool]]
    return OperationsReport(
        since=since,
        until=until,
        reads=ReadFigures(
            calls=reads,
            transient_seen=seen,
            recovered=recovered,
            surfaced=seen - recovered,
            failed=failed,
            failure_rate=_ratio(failed, reads) or 0.0,
            failure_rate_without_retry=_ratio(failed + recovered, reads) or 0.0,
            failures_avoided=_ratio(recovered, failed + recovered),
        ),
        writes=WriteFigures(
            calls=writes, transient_failures=write_transients, retried=retried_writes
        ),
        sizes=[_sizes(tool, answers[tool]) for tool in sorted(answers)]
        + ([_sizes("*", every)] if every else []),
        approvals=await approval_figures(session, since, until, stages or {}),
    )


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def render(report: OperationsReport) -> str:
    """The report as plain text tables, for a person at a terminal."""
    reads, writes = report.reads, report.writes
    lines = [
        f"Tool calls {report.since:%Y-%m-%d %H:%M} – {report.until:%Y-%m-%d %H:%M} UTC",
        "",
        "SC-003 transient failures (reads retried once, writes never)",
        f"  reads                          {reads.calls}",
        f"  first attempt failed (5xx…)    {reads.transient_seen}",
        f"    recovered by the retry       {reads.recovered}",
        f"    surfaced to the model        {reads.surfaced}",
        f"  read failure rate              {_percent(reads.failure_rate)}",
        f"    without the retry            {_percent(reads.failure_rate_without_retry)}",
        f"    failures avoided             {_percent(reads.failures_avoided)}",
        f"  writes                         {writes.calls}",
        f"    transient failures           {writes.transient_failures}",
        f"    retried                      {writes.retried}",
        "",
        "SC-004 answer size entering the model (calls that ended ok)",
    ]
    width = max([len(size.tool) for size in report.sizes] + [4])
    lines.append(f"  {'tool':<{width}}  answers  raw chars  model chars  model/raw")
    for size in report.sizes:
        ratio = "—" if size.ratio is None else f"{size.ratio:.2f}×"
        lines.append(
            f"  {size.tool:<{width}}  {size.answers:>7}  {size.mean_raw_chars:>9.0f}"
            f"  {size.mean_model_chars:>11.0f}  {ratio:>9}"
        )
    if not report.sizes:
        lines.append("  (no answers in this period)")
    return "\n".join([*lines, "", *render_lines(report.approvals)])
