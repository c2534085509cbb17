"""Environments: which Superset instances there are, their stage, whether they answer, and
which Superset release each runs (said once more when the fleet is mid-upgrade)."""

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
    said = {str(item["id"]): item.get("superset_version") for item in listed}
    releases = {version for version in said.values() if isinstance(version, str)}
    if len(releases) > 1:
        by_env = ", ".join(
            f"{md(env)} — {md(str(version))}" for env, version in said.items() if version
        )
        verdict += " " + texts.ENVIRONMENTS_MIXED.format(versions=by_env)
    out = [verdict, "", texts.ENVIRONMENTS_HEAD, "|---|---|---|---|---|"]
    for item in listed:
        label = f"{md(item.get('name') or item['id'])} (`{md(item['id'])}`)"
        stage = texts.STAGES.get(str(item.get("stage")), "—")
        version = md(str(item["superset_version"])) if item.get("superset_version") else "—"
        out.append(
            f"| {label} | {stage} | {yes_no(item.get('reachable'))} | {version} "
            f"| {link(texts.OPEN_SUPERSET, item.get('url')) or '—'} |"
        )
    return "\n".join(out)
