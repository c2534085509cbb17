"""Words the offline answers are made of: counts, yes/no, dates, links, safe names (Russian).

The sentences themselves are in :mod:`sstools.agent.texts.answers`; this module only turns
values into the words a person uses («3 дашборда», «да», «30 ноября 2026, 00:19»).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sstools.agent.texts import answers as texts
from sstools.ids import SNAPSHOT_PREFIX
from sstools.russian import human_datetime, plural_form

ISO_DATETIME = re.compile(
    r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?![\d:])"
)
# Ids nobody reads: a Superset object's UUID, a task's 32 hex digits (as a whole word of hex).
UUID = re.compile(r"\b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
TASK_ID = re.compile(r"(?<![0-9a-fA-F])[0-9a-fA-F]{32}(?![0-9a-fA-F])")
_LINK_TARGET = re.compile(r"(\]\([^)\s]*\))")
SHORT = 8  # characters of an id a person quotes: «задача 3f9c2b7e», «docs/706802f5….md»
# Characters that would make a name from Superset into markdown structure (links, tables, code).
_MARKDOWN = re.compile(r"([\\`*\[\]|])")
_SHOWN = 12


def plural(count: int, noun: str) -> str:
    """The noun's form for ``count``, without the number: plural(3, "dashboard") → «дашборда»."""
    return plural_form(count, *texts.NOUNS[noun])


def count(number: int, noun: str) -> str:
    """«3 дашборда», «1 график», «0 проблем»."""
    return f"{number} {plural(number, noun)}"


def yes_no(value: object) -> str:
    return texts.YES if value else texts.NO


def when(value: object) -> str:
    """An ISO timestamp as «30 ноября 2026, 00:19»; «—» when there is none or it is not one."""
    if not isinstance(value, str) or not value:
        return "—"
    try:
        return human_datetime(value)
    except ValueError:
        return "—"


def humanise_dates(text: str) -> str:
    """Every ISO timestamp inside free text, as people write dates."""
    return ISO_DATETIME.sub(lambda match: when(match.group(0)), text)


def short_id(value: object) -> str:
    """A task's id as people quote it: its first 8 hex digits."""
    return str(value)[:SHORT]


def _shortened(match: re.Match[str]) -> str:
    return match.group(0)[:SHORT] + "…"


def shorten_ids(text: str, *, task_ids: bool = True) -> str:
    """Every UUID (and, with ``task_ids``, every 32-hex id) in ``text`` cut to its first 8
    characters and «…»; a link's target is left whole, so the link still leads there."""
    parts = _LINK_TARGET.split(text)
    for index in range(0, len(parts), 2):  # odd parts are link targets
        parts[index] = UUID.sub(_shortened, parts[index])
        if task_ids:
            parts[index] = TASK_ID.sub(_shortened, parts[index])
    return "".join(parts)


def branch_name(value: object) -> str:
    """A branch as a person reads it: a deploy's snapshot ``snapshots/<task id>`` shortened."""
    return md(shorten_ids(str(value)))


def snapshot_of(branch: object) -> str | None:
    """The short id of the deploy whose snapshot ``branch`` is (``snapshots/<task id>``)."""
    name = str(branch)
    if not name.startswith(SNAPSHOT_PREFIX) or not TASK_ID.fullmatch(name[len(SNAPSHOT_PREFIX) :]):
        return None
    return short_id(name[len(SNAPSHOT_PREFIX) :])


def md(value: object) -> str:
    """A name from Superset or git as plain text inside markdown: it cannot become a link."""
    text = " ".join(str(value).split())  # a line break in a name would end a list item
    return _MARKDOWN.sub(r"\\\1", text)


def quoted(value: object) -> str:
    return f"«{md(value)}»"


def names(
    items: Iterable[object], *, quote: bool = True, shown: int = _SHOWN, total: int | None = None
) -> str:
    """«А», «Б» …и ещё 3 — at most ``shown`` names, the rest counted; ``total`` when ``items``
    are only the first of a longer list."""
    listed = list(items)
    if not listed:
        return texts.NONE
    text = [quoted(item) if quote else md(item) for item in listed[:shown]]
    rest = max(total or 0, len(listed)) - len(text)
    if rest > 0:
        text.append(texts.MORE_NAMES.format(count=rest))
    return ", ".join(text)


def link(label: str, url: object) -> str | None:
    """A markdown link to an http(s) URL or a path of this site; None for anything else."""
    if not isinstance(url, str) or not re.match(r"^(https?://|/(?!/))[^\s()<>]*$", url):
        return None
    return f"[{label}]({url})"


def links(*pairs: tuple[str, object]) -> str | None:
    """«Открыть: [в sstools](…) · [в Superset](…)», or None when there is no usable URL."""
    made = [made for label, url in pairs if (made := link(label, url))]
    return texts.OPEN.format(links=" · ".join(made)) if made else None


def items_of(payload: Any, key: str = "items") -> tuple[list[Any], int]:
    """A list answer as (items, total): plain, or shrunk by the summariser to its first items."""
    if isinstance(payload, list):
        return payload, len(payload)
    if isinstance(payload, dict) and isinstance(payload.get(key), list):
        items = payload[key]
        total = payload.get(f"{key}_total_count") or payload.get("total") or len(items)
        return items, int(total) if isinstance(total, int) else len(items)
    return [], 0


def total_of(payload: dict[str, Any], key: str) -> int:
    """How many ``payload[key]`` has in all: its ``{key}_total_count`` when the list was cut."""
    items = payload.get(key)
    total = payload.get(f"{key}_total_count")
    counted = len(items) if isinstance(items, list) else 0
    return total if isinstance(total, int) and total > counted else counted


def more(shown: int, total: int) -> str | None:
    """«Показаны первые 20 из 35.» when the list was shortened."""
    return texts.SHOWN_FIRST.format(shown=shown, total=total) if total > shown else None


def size(number_of_bytes: object) -> str:
    if not isinstance(number_of_bytes, int):
        return "—"
    if number_of_bytes < 1024:
        return count(number_of_bytes, "byte")
    kib = number_of_bytes / 1024
    if kib < 1024:
        return texts.KIB.format(size=f"{kib:.1f}".replace(".", ","))
    return texts.MIB.format(size=f"{kib / 1024:.1f}".replace(".", ","))


@dataclass(frozen=True)
class Hint:
    """What the answer knows besides the result: the tool that gave it, the page's environment and
    the call's arguments."""

    env_id: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)
    tool: str | None = None


NO_HINT = Hint()


def mapping(value: object) -> dict[str, Any]:
    """The value when it is a JSON object, else an empty one (a shape nobody promised)."""
    return value if isinstance(value, dict) else {}


def listing(value: object) -> list[Any]:
    return value if isinstance(value, list) else []
