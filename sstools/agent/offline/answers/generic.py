"""The careful fallback: any JSON as Russian lines, for a tool (or a shape) with no renderer.

Only keys with a Russian label are shown (an English key is not a word a person reads);
booleans are «да»/«нет», timestamps are dates, identifiers and digests are left out.
"""

from __future__ import annotations

import re
from typing import Any

from sstools.agent.offline.answers.words import (
    ISO_DATETIME,
    humanise_dates,
    items_of,
    md,
    more,
    shorten_ids,
    when,
    yes_no,
)
from sstools.agent.texts import answers as texts

_LIST_SHOWN = 20
_DEPTH = 3
# A list item is named by the first of these it has.
_NAME_KEYS = ("title", "name", "object_name", "role", "path", "message")


def scalar(value: Any) -> str | None:
    """A value as words; None for what a person would not read (None, an empty string)."""
    if isinstance(value, bool):
        return yes_no(value)
    if value is None or value == "":
        return None
    if isinstance(value, int | float):
        return str(value)
    text = str(value)
    if ISO_DATETIME.fullmatch(text.strip()):
        return when(text.strip())
    return humanise_dates(md(text))


def _label(key: str) -> str | None:
    if key in texts.LABELS:
        return texts.LABELS[key]
    base = key.removesuffix("_count")
    return texts.LABELS.get(base) if base != key and not key.endswith("_total_count") else None


def _item(item: Any) -> str | None:
    if not isinstance(item, dict):
        return scalar(item)
    key = next((k for k in _NAME_KEYS if scalar(item.get(k))), None)
    head = scalar(item[key]) if key else None
    extras = [
        f"{label}: {text}"
        for k, v in item.items()
        if k != key
        and not isinstance(v, dict | list)
        and (label := _label(k))
        and (text := scalar(v))
    ]
    if head and extras:
        return f"{head} ({'; '.join(extras)})"
    return head or ("; ".join(extras) if extras else None)


def lines(payload: Any, depth: int = 0) -> list[str]:
    pad = "  " * depth
    if isinstance(payload, list) or (isinstance(payload, dict) and "items" in payload):
        items, total = items_of(payload)
        listed = [f"{pad}- {text}" for item in items[:_LIST_SHOWN] if (text := _item(item))]
        if (note := more(min(len(items), _LIST_SHOWN), total)) is not None:
            listed.append(f"{pad}- {note}")
        return listed
    if not isinstance(payload, dict):
        text = scalar(payload)
        return [f"{pad}{text}"] if text else []
    out: list[str] = []
    for key, value in payload.items():
        label = _label(key)
        if label is None:
            continue
        if isinstance(value, dict | list):
            nested = lines(value, depth + 1) if depth < _DEPTH else []
            if nested:
                out += [f"{pad}- {label}:", *nested]
        elif (text := scalar(value)) is not None:
            out.append(f"{pad}- {label}: {text}")
    return out


def _russian(message: str) -> str:
    """FastAPI's validation wording («String should match pattern …») in Russian."""
    for pattern, words in texts.VALIDATION_MESSAGES:
        message = re.sub(pattern, words, message)
    return message


def render(payload: Any) -> str:
    """Any answer as lines; an error (the executor's words, or the server's ``detail``) as one
    sentence, a task or object it names by a short id (no one reads 32 hex digits)."""
    if isinstance(payload, dict) and set(payload) == {"error"}:
        message = _russian(scalar(payload["error"]) or "—")
        return texts.FAILED.format(message=shorten_ids(message))
    if isinstance(payload, dict) and isinstance(payload.get("detail"), str):
        return texts.FAILED.format(message=shorten_ids(scalar(payload["detail"]) or "—"))
    if isinstance(payload, dict) and isinstance(payload.get("detail"), list):  # a 422's fields
        problems = [scalar(p.get("msg")) for p in payload["detail"] if isinstance(p, dict)]
        return texts.FAILED.format(message="; ".join(p for p in problems if p) or "—")
    found = lines(payload)
    if not found:
        return texts.NOTHING_FOUND if isinstance(payload, list) else texts.DONE
    return "\n".join(found)
