"""Text helpers shared by the domain and the agent: folding for search, Russian plural forms."""

from __future__ import annotations

import unicodedata


def normalize(text: str) -> str:
    """Fold case and compatibility forms; treat «ё» as «е», as people type it either way."""
    return unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")


def plural_form(count: int, one: str, few: str, many: str) -> str:
    """The Russian form for ``count``: one (1, 21), few (2–4, 22–24) or many (5–20, 0, 11–14)."""
    tail, tens = abs(count) % 10, abs(count) % 100
    if tail == 1 and tens != 11:
        return one
    return few if 2 <= tail <= 4 and not 12 <= tens <= 14 else many
