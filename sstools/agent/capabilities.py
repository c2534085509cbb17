"""The answer of ``show_capabilities``: what is offered here, and what is hidden and why."""

from __future__ import annotations

from typing import Any

from sstools.agent import texts
from sstools.agent.selection import Selection
from sstools.agent.tools import CATALOGUE


def capabilities(selection: Selection) -> dict[str, Any]:
    return {
        "title": texts.CAPABILITIES_TITLE,
        "available": [
            {
                "tool": name,
                "title": CATALOGUE[name].title,
                "what": CATALOGUE[name].description.splitlines()[0],
            }
            for name in selection.offered
        ],
        "hidden": [
            {"tool": name, "why": hidden.detail} for name, hidden in selection.hidden.items()
        ],
    }
