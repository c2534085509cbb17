"""ToolResponseSummary (AGTL-FR-003): what of a tool's answer enters the model.

:func:`for_model` is the entry point: the tool's projection (concise by design, see
:mod:`sstools.agent.tools.shaping`), compacted (no nulls, timestamps to the second, float noise
rounded), then :func:`summarize` as the guarantee. Large answers shrink by structure, never cut
mid-JSON: arrays keep their first items, each projected to its scalar fields, plus the total
count and a note on how to see more; long text is cut at a sentence boundary. The result is
always valid JSON and never longer than the limit, i.e. never larger than the hard-cut equivalent.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sstools.agent import texts
from sstools.agent.tools.spec import ToolArgs, ToolSpec

LIMIT = 4000
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s")
# 2026-11-30T08:32:20.179925+00:00 → 2026-11-30T08:32:20Z: a model needs no microseconds.
_TIMESTAMP = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.\d+)?(Z|[+-]00:?00)?$")
_FLOAT_DIGITS = 12  # 5370.419999999999 → 5370.42: the noise of summing floats, not data


def compact(value: Any) -> Any:
    """The same JSON in fewer characters: no null members, timestamps to the second, floats
    without summation noise. Nothing a reader could tell apart is lost."""
    if isinstance(value, dict):
        return {key: compact(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [compact(item) for item in value]
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return float(f"{value:.{_FLOAT_DIGITS}g}")
    if isinstance(value, str) and (found := _TIMESTAMP.match(value)):
        return found.group(1) + ("Z" if found.group(2) else "")
    return value


def for_model(tool: ToolSpec, args: ToolArgs, payload: Any, limit: int = LIMIT) -> str:
    """What the model reads of a successful answer: JSON, at most ``limit`` characters."""
    return summarize(compact(tool.project(payload, args)), limit)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def cut_text(text: str, budget: int) -> str:
    """At most ``budget`` characters, ending at a sentence boundary when there is one."""
    if len(text) <= budget:
        return text
    head = text[: max(budget - 1, 0)]
    ends = [match.start() for match in _SENTENCE_END.finditer(head + " ")]
    cut = ends[-1] if ends and ends[-1] > budget // 3 else len(head)
    return head[:cut].rstrip() + "…"


def _project(item: Any, text_budget: int) -> Any:
    """An item's useful part: scalars (long strings shortened); nested lists become counts."""
    if isinstance(item, dict):
        projected: dict[str, Any] = {}
        for key, value in item.items():
            if isinstance(value, str):
                projected[key] = cut_text(value, text_budget)
            elif isinstance(value, list):
                projected[f"{key}_count"] = len(value)
            elif not isinstance(value, dict):
                projected[key] = value
        return projected
    if isinstance(item, str):
        return cut_text(item, text_budget)
    return item


def _largest_fit(build: Any, most: int, limit: int) -> str | None:
    """``build(k)`` as JSON for the largest k in [0, most] that fits (None if even 0 does not)."""
    low, high, best = 0, most, None
    while low <= high:
        middle = (low + high) // 2
        candidate = _dumps(build(middle))
        if len(candidate) <= limit:
            best, low = candidate, middle + 1
        else:
            high = middle - 1
    return best


def _fit_dict(payload: dict[str, Any], limit: int) -> str | None:
    """Every list in the object keeps its first k items (the same k), with its total count."""
    lists = {key: value for key, value in payload.items() if isinstance(value, list)}
    longest = max((len(value) for value in lists.values()), default=0)
    for text_budget in (200, 80, 30):
        scalars = {
            key: _project(value, text_budget) for key, value in payload.items() if key not in lists
        }

        def build(k: int, scalars: dict[str, Any] = scalars, budget: int = text_budget) -> Any:
            out = dict(scalars)
            for key, items in lists.items():
                out[key] = [_project(item, budget) for item in items[:k]]
                if len(items) > k:
                    # A projection that already shortened the list knows its true total.
                    out.setdefault(f"{key}_total_count", len(items))
            cut = [
                (key, out[f"{key}_total_count"]) for key, items in lists.items() if len(items) > k
            ]
            if cut:
                notes = [f"{key}: {texts.SUMMARY_CUT.format(shown=k, total=n)}" for key, n in cut]
                out["note"] = "; ".join(notes)
            return out

        fitted = _largest_fit(build, longest, limit)
        if fitted is not None:
            return fitted
    return None


def summarize(payload: Any, limit: int = LIMIT) -> str:
    """JSON for the model, at most ``limit`` characters."""
    raw = _dumps(payload)
    if len(raw) <= limit:
        return raw
    if isinstance(payload, list):
        fitted = _fit_dict({"items": payload}, limit)
        if fitted is not None:
            return fitted
    elif isinstance(payload, dict):
        fitted = _fit_dict(payload, limit)
        if fitted is not None:
            return fitted
    elif isinstance(payload, str):
        return _fit_text(payload, limit, lambda text: text)
    # Whatever is left: the first sentences of its JSON text, as a string under "summary".
    return _fit_text(raw, limit, lambda text: {"summary": text})


def _fit_text(text: str, limit: int, wrap: Any) -> str:
    """``wrap(cut text)`` as JSON within ``limit``; escaping lengthens text, so shrink to fit."""
    budget = limit
    while budget > 0:
        candidate = _dumps(wrap(cut_text(text, budget)))
        if len(candidate) <= limit:
            return candidate
        budget -= max(len(candidate) - limit, 8)
    return _dumps(wrap("…"))
