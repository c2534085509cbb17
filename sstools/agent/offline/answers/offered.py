"""show_capabilities, as a person reads it: the titles of what is offered, and what is hidden
grouped by the reason (:mod:`sstools.agent.capabilities` makes the answer itself)."""

from __future__ import annotations

from typing import Any

from sstools.agent.offline.answers.words import NO_HINT, Hint, md
from sstools.agent.texts import answers as texts


def capabilities(payload: Any, hint: Hint = NO_HINT) -> str | None:
    if not isinstance(payload, dict) or not isinstance(payload.get("available"), list):
        return None
    offered = [str(item.get("title")) for item in payload["available"] if isinstance(item, dict)]
    out = (
        [texts.CAPABILITIES_OFFERED.format(count=len(offered)), *(f"- {md(t)}" for t in offered)]
        if offered
        else [texts.CAPABILITIES_NONE]
    )
    by_reason: dict[str, list[str]] = {}
    for item in payload.get("hidden") or []:
        if isinstance(item, dict) and item.get("title"):
            by_reason.setdefault(str(item.get("why") or "—"), []).append(str(item["title"]))
    if by_reason:
        out += ["", texts.CAPABILITIES_HIDDEN]
        out += [
            f"- {md(why)}: {', '.join(md(t) for t in titles)}" for why, titles in by_reason.items()
        ]
    return "\n".join(out)
