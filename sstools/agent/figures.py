"""Charts for the chat, drawn from a tool's own answer — never from numbers the model wrote.

The executor makes them from the domain API's JSON as it came, beside what the model reads; the
``tool_result`` event carries them and the page draws each as bars with a table beside (for
screen readers and phones). Only a dashboard's numbers are drawn: each chart whose rows are of
one group-by column, and, compared, each differing number in both environments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from sstools.agent.texts import dashboard_data as texts

MAX_FIGURES = 6
MAX_BARS = 30
MAX_SERIES = 3
MAX_TEXT = 120


class Series(BaseModel):
    name: str
    values: list[float | None]


class Figure(BaseModel):
    """A bar chart: ``labels`` along one axis, one bar per series at each."""

    title: str
    label: str  # what the labels are (the group-by column, or «строка»)
    labels: list[str]
    series: list[Series]


def _text(value: Any) -> str:
    return " ".join(str(value).split())[:MAX_TEXT]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _numeric(rows: Sequence[Sequence[Any]], index: int) -> bool:
    values = [row[index] for row in rows if index < len(row)]
    return any(_number(v) is not None for v in values) and all(
        v is None or _number(v) is not None for v in values
    )


def _chart(chart: Mapping[str, Any]) -> Figure | None:
    columns = [str(one) for one in chart.get("columns") or []]
    keys = [str(one) for one in chart.get("key_columns") or []]
    rows = [row for row in chart.get("rows") or [] if isinstance(row, list)][:MAX_BARS]
    if len(keys) != 1 or keys[0] not in columns or not rows or chart.get("error"):
        return None
    at = columns.index(keys[0])
    measured = [i for i, _ in enumerate(columns) if i != at and _numeric(rows, i)][:MAX_SERIES]
    if not measured:
        return None
    return Figure(
        title=_text(chart.get("name") or ""),
        label=_text(keys[0]),
        labels=[_text(row[at]) for row in rows],
        series=[
            Series(name=_text(columns[i]), values=[_number(row[i]) for row in rows])
            for i in measured
        ],
    )


def _compared(payload: Mapping[str, Any]) -> list[Figure]:
    here, there = _text(payload.get("env_id") or ""), _text(payload.get("other_env_id") or "")
    out = []
    for chart in payload.get("charts") or []:
        differences = [one for one in chart.get("differences") or [] if isinstance(one, dict)]
        if not differences:
            continue
        shown = differences[:MAX_BARS]
        several = len({str(one.get("column")) for one in shown}) > 1
        labels = [
            ", ".join(_text(v) for v in one.get("row") or []) or _text(one.get("column") or "")
            for one in shown
        ]
        if several:
            labels = [
                f"{label} · {_text(one.get('column'))}"
                for label, one in zip(labels, shown, strict=True)
            ]
        out.append(
            Figure(
                title=_text(chart.get("name") or ""),
                label=texts.ROW,
                labels=labels,
                series=[
                    Series(name=here, values=[_number(one.get("here")) for one in shown]),
                    Series(name=there, values=[_number(one.get("there")) for one in shown]),
                ],
            )
        )
    return out[:MAX_FIGURES]


def figures(tool: str, payload: Any) -> list[Figure]:
    """The charts to draw for ``tool``'s answer ``payload`` (none for most tools)."""
    if tool != "get_dashboard_data" or not isinstance(payload, Mapping):
        return []
    if "other_env_id" in payload:
        return _compared(payload)
    drawn = (_chart(chart) for chart in payload.get("charts") or [] if isinstance(chart, Mapping))
    return [figure for figure in drawn if figure is not None][:MAX_FIGURES]
