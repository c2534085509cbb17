"""The web catalogue is one dict made of a module per area: no key may be said twice."""

from __future__ import annotations

from collections import Counter

from sstools.web.strings import AREAS, UI


def test_no_key_is_in_two_areas() -> None:
    # Two areas with one key would let the later one silently replace the other's words.
    twice = [key for key, times in Counter(k for area in AREAS for k in area).items() if times > 1]
    assert twice == []
    assert len(UI) == sum(len(area) for area in AREAS)
