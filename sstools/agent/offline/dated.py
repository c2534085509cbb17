"""A backup named by the day it was taken («из бэкапа от 5 декабря», "the Dec 5 backup",
«05.12», "2026-12-05"): its id, from the task records the planner is handed.

A backup's id carries its moment in UTC (``prod.20261205T030000000000Z``); a day said without a
year is that day of any year, the newest backup first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sstools.agent.fleet import Fleet
from sstools.agent.offline.names import latest_task
from sstools.agent.texts import data_words

_ISO = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_DOTTED = re.compile(r"(?<![\d.])(\d{1,2})\.(\d{1,2})(?:\.(\d{4}|\d{2}))?(?![\d.])")
_TAKEN = re.compile(r"\.(\d{4})(\d{2})(\d{2})T")
# "dec", "sept": a month's English abbreviation is its name's start.
_ENGLISH_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip


@dataclass(frozen=True)
class Day:
    month: int
    day: int
    year: int | None = None

    def holds(self, backup_id: str) -> bool:
        taken = _TAKEN.search(backup_id)
        if taken is None:
            return False
        year, month, day = (int(part) for part in taken.groups())
        return (month, day) == (self.month, self.day) and self.year in (None, year)


def _month(word: str) -> int | None:
    for stem, number in data_words.MONTHS:
        if word.startswith(stem):
            return number
    english = [n for n, name in enumerate(_ENGLISH_MONTHS, 1) if name.startswith(word)]
    return english[0] if len(word) >= 3 and len(english) == 1 else None


def day_said(text: str) -> Day | None:
    """The calendar day a text names, if it names one."""
    lower = text.lower()
    if iso := _ISO.search(lower):
        return Day(int(iso[2]), int(iso[3]), int(iso[1]))
    for match in data_words.DAY_THEN_MONTH.finditer(lower):
        if (month := _month(match[2])) is not None and 1 <= int(match[1]) <= 31:
            return Day(month, int(match[1]))
    for match in data_words.MONTH_THEN_DAY.finditer(lower):
        if (month := _month(match[1])) is not None and 1 <= int(match[2]) <= 31:
            return Day(month, int(match[2]))
    if dotted := _DOTTED.search(lower):
        day, month = int(dotted[1]), int(dotted[2])
        year = dotted[3] and int(dotted[3]) + (2000 if len(dotted[3]) == 2 else 0)
        if 1 <= day <= 31 and 1 <= month <= 12:
            return Day(month, day, year or None)
    return None


def backup_on(text: str, fleet: Fleet, env_ids: Sequence[str]) -> str | None:
    """The newest succeeded backup taken on the day the text names, of the first of ``env_ids``
    that has one («накати на стейдж копию прода от 5 декабря»: staging's, else prod's)."""
    day = day_said(text)
    if day is None:
        return None
    for env_id in dict.fromkeys(env_ids):
        for task in latest_task(fleet, ("backup",), env_id):
            if task.status == "succeeded" and task.objects and day.holds(task.objects[0]):
                return task.objects[0]
    return None
