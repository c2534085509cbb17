"""Environments: which Superset instances there are, their stage, and whether they answer."""

from __future__ import annotations

from typing import Any

from sstools.agent.offline.answers.words import NO_HINT, Hint, items_of, link, md, names, yes_no
from sstools.agent.texts import answers as texts


def environments(payload: Any, hint: Hint = NO_HINT) -> str | None:
    items, total = items_of(payload)
    listed = [item for item in items if isinstance(item, dict) and "id" in item]
    if not listed:
        return None
    down = [
        f"{item.get('name') or item['id']} ({item['id']})"
        for item in listed
        if not item.get("reachable")
    ]
    verdict = (
        texts.ENVIRONMENTS_SOME_DOWN.format(count=total, names=names(down))
        if down
        else texts.ENVIRONMENTS_ALL_UP.format(count=total)
    )
    out = [verdict, "", texts.ENVIRONMENTS_HEAD, "|---|---|---|---|"]
    for item in listed:
        label = f"{md(item.get('name') or item['id'])} (`{md(item['id'])}`)"
        stage = texts.STAGES.get(str(item.get("stage")), "—")
        out.append(
            f"| {label} | {stage} | {yes_no(item.get('reachable'))} "
            f"| {link(texts.OPEN_SUPERSET, item.get('url')) or '—'} |"
        )
    return "\n".join(out)
