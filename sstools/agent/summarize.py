"""ToolResponseSummary (AGTL-FR-003): large answers shrink by structure, never cut mid-JSON.

Arrays keep their first items, each projected to its scalar fields, plus the total count and a
note on how to see more; long text is cut at a sentence boundary. The result is always valid JSON
and never longer than the limit, i.e. never larger than the hard-cut equivalent.
"""

from __future__ import annotations

import json
import re
from typing import Any

LIMIT = 4000
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s")
_LIST_KEYS = ("items", "result", "rows", "data", "roles", "charts", "dashboards", "columns")


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


def _fit_list(items: list[Any], wrap: Any, limit: int) -> str | None:
    """The most leading items (projected) that fit, wrapped with the count; None if none fit."""
    for text_budget in (200, 80, 30):
        projected = [_project(item, text_budget) for item in items]
        low, high, best = 0, len(projected), None
        while low <= high:
            middle = (low + high) // 2
            candidate = _dumps(wrap(projected[:middle], len(items)))
            if len(candidate) <= limit:
                best, low = candidate, middle + 1
            else:
                high = middle - 1
        if best is not None:
            return best
    return None


def _main_list(payload: dict[str, Any]) -> str | None:
    for key in _LIST_KEYS:
        if isinstance(payload.get(key), list):
            return key
    lists = [key for key, value in payload.items() if isinstance(value, list)]
    return max(lists, key=lambda key: len(payload[key])) if lists else None


def summarize(payload: Any, limit: int = LIMIT) -> str:
    """JSON for the model, at most ``limit`` characters."""
    raw = _dumps(payload)
    if len(raw) <= limit:
        return raw
    note = "показаны первые {shown} из {total}; уточните запрос или запросите следующую страницу"

    if isinstance(payload, list):
        fitted = _fit_list(
            payload,
            lambda shown, total: {
                "items": shown,
                "total_count": total,
                "note": note.format(shown=len(shown), total=total),
            },
            limit,
        )
        if fitted is not None:
            return fitted
    elif isinstance(payload, dict):
        key = _main_list(payload)
        if key is not None:
            rest = {k: _project(v, 200) for k, v in payload.items() if k != key}

            def wrap(shown: list[Any], total: int) -> dict[str, Any]:
                return {
                    **rest,
                    key: shown,
                    f"{key}_total_count": total,
                    "note": note.format(shown=len(shown), total=total),
                }

            fitted = _fit_list(payload[key], wrap, limit)
            if fitted is not None:
                return fitted
        projected = _dumps(_project(payload, 200))
        if len(projected) <= limit:
            return projected
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
