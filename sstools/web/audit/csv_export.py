"""The audit as CSV: the rows the page shows (same filters, same role scoping), one line each.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage
return before one) as a formula; names and reasons are people's text, so such a cell is
prefixed with ``'`` and read as text."""

from __future__ import annotations

import csv
import io

from sstools.web.audit.rows import AuditRow
from sstools.web.strings import UI

EXPORT_LIMIT = 10_000  # an export of more is a job for the database, not a download
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def _line(row: AuditRow) -> list[str]:
    task = row.task
    values: list[object] = [
        row.at.strftime("%Y-%m-%d %H:%M:%S"),
        row.requested_by,
        UI[f"audit_face_{row.face.value}"],
        row.title,
        row.env_name or row.env_id,
        "; ".join(row.objects),
        ", ".join(row.approved_by),
        row.refused_by,
        row.outcome_words,
        row.reason,
        row.digest,
        task.short if task else None,
        task.status_words if task else None,
        "; ".join(task.result) if task else row.call_failed,
        task.rolled_back_by.short if task and task.rolled_back_by else None,
    ]
    return [cell(value) for value in values]


def audit_csv(rows: list[AuditRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(UI["audit_csv_columns"].split(","))
    writer.writerows(_line(row) for row in rows)
    return out.getvalue()
