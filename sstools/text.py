"""Text folding shared by the domain's search and the agent's offline planner."""

from __future__ import annotations

import unicodedata


def normalize(text: str) -> str:
    """Fold case and compatibility forms; treat «ё» as «е», as people type it either way."""
    return unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")
