"""What a search route of the domain API takes: words in a name, a page, its size (the scan's
limit is the server's), as one dependency each route names its words for."""

# No ``from __future__ import annotations``: FastAPI reads ``q``'s annotation, which names the
# enclosing call's ``words``, and a string annotation could not see it.

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Query

from sstools.http.deps import PageNumber, PageSize, SettingsDep


@dataclass(frozen=True)
class Search:
    words: str | None
    page: int
    page_size: int
    scan_limit: int  # how many objects Superset is asked for at most, to match the words in


def search_by(words: str) -> Callable[..., Search]:
    """The dependency of a search route; ``words`` describes its ``q`` (what the words match)."""

    def search(
        settings: SettingsDep,
        q: Annotated[str | None, Query(max_length=200, description=words)] = None,
        page: PageNumber = 0,
        page_size: PageSize = 20,
    ) -> Search:
        return Search(q, page, page_size, settings.search_scan_limit)

    return search
