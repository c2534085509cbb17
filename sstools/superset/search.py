"""Case-insensitive text matching done on our side, so it behaves alike on any metadata DB.

Superset's ``ct`` filter is an SQL ``ILIKE``/``LIKE``: on a SQLite metadata DB it folds ASCII
only, so «Энерг» never finds «энергопотребление». We fetch the titles and match them here instead.
"""

from __future__ import annotations

from sstools.russian import normalize


def matches(query: str | None, *fields: str | None) -> bool:
    """True when every word of ``query`` occurs in one of ``fields`` (empty query matches all)."""
    if not query or not query.strip():
        return True
    haystack = " ".join(normalize(field) for field in fields if field)
    return all(word in haystack for word in normalize(query).split())
