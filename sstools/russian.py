"""Russian as people read and type it: plural forms, dates («30 ноября 2026, 00:19», not ISO
8601), and the folding a search needs («ё» typed as «е»). Language data, not a catalogue."""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime, tzinfo

# Genitive: the month follows the day («30 ноября»), so it is never the nominative «ноябрь».
MONTHS_GENITIVE = (
    "января",
    "февраля",
    "марта",
    "апреля",
    "мая",
    "июня",
    "июля",
    "августа",
    "сентября",
    "октября",
    "ноября",
    "декабря",
)


def normalize(text: str) -> str:
    """Fold case and compatibility forms; treat «ё» as «е», as people type it either way."""
    return unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")


def plural_form(count: int, one: str, few: str, many: str) -> str:
    """The Russian form for ``count``: one (1, 21), few (2–4, 22–24) or many (5–20, 0, 11–14)."""
    tail, tens = abs(count) % 10, abs(count) % 100
    if tail == 1 and tens != 11:
        return one
    return few if 2 <= tail <= 4 and not 12 <= tens <= 14 else many


def human_datetime(value: datetime | str | None, zone: tzinfo = UTC) -> str:
    """``value`` in ``zone`` as «30 ноября 2026, 00:19»; a naive value is taken as UTC.

    Superset's ``changed_on_utc`` comes without an offset, and our models already read it as
    UTC; a string is accepted so templates may pass what JSON gave them.
    """
    if value is None or value == "":
        return "—"
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    local = moment.astimezone(zone)
    month = MONTHS_GENITIVE[local.month - 1]
    return f"{local.day} {month} {local.year}, {local:%H:%M}"
