"""Backups: the list of an environment's archives (the restore plan reads as a deploy plan)."""

from __future__ import annotations

from typing import Any

from sstools.agent.offline.answers.tasks import kinds_counted
from sstools.agent.offline.answers.words import NO_HINT, Hint, md, names, size, when
from sstools.agent.texts import answers as texts


def backups(payload: Any, hint: Hint = NO_HINT) -> str | None:
    if not isinstance(payload, dict) or "backups" not in payload:
        return None
    listed = [item for item in payload.get("backups") or [] if isinstance(item, dict)]
    total = payload.get("backups_total_count") or len(listed)
    if not listed:
        out = [texts.BACKUPS_NONE]
    else:
        newest = max(listed, key=lambda item: str(item.get("created_at") or ""))
        out = [
            texts.BACKUPS_FOUND.format(count=total, when=when(newest.get("created_at"))),
            "",
            texts.BACKUPS_HEAD,
            "|---|---|---|---|---|",
        ]
        for item in listed[:20]:
            out.append(
                f"| `{md(item.get('id'))}` | {when(item.get('created_at'))} "
                f"| {md(item.get('created_by') or '—')} | {kinds_counted(item.get('counts'))} "
                f"| {size(item.get('bytes'))} |"
            )
    unreadable = payload.get("unreadable") or []
    if unreadable:
        shown = [item.get("id", item) if isinstance(item, dict) else item for item in unreadable]
        out += ["", texts.BACKUPS_UNREADABLE.format(names=names(shown, quote=False))]
    return "\n".join(out)
