"""The permissions audit: who can reach the object, verdict first, then role by role."""

from __future__ import annotations

import re
from typing import Any

from sstools.agent.offline.answers.words import NO_HINT, Hint, md, names, yes_no
from sstools.agent.texts import answers as texts


def grant(text: object) -> str:
    """A grant the audit names, in Russian words; permission names stay as code."""
    raw = str(text)
    for pattern, template in texts.GRANT_PATTERNS:
        found = re.match(pattern, raw)
        if found:
            return template.format(*(md(part or "") for part in found.groups()))
    return md(raw)


def audit(payload: Any, hint: Hint = NO_HINT) -> str | None:
    if not isinstance(payload, dict) or not isinstance(payload.get("roles"), list):
        return None
    kind = texts.AUDIT_OBJECTS.get(str(payload.get("object_type")), texts.AUDIT_OBJECT)
    subject = f"{kind} «{md(payload.get('object_name') or '—')}»"
    roles = [role for role in payload["roles"] if isinstance(role, dict)]
    reach = [role.get("role") for role in roles if role.get("can_reach")]
    out = [
        texts.AUDIT_VERDICT.format(object=subject, names=names(reach, quote=False))
        if reach
        else texts.AUDIT_NOBODY.format(object=subject),
        "",
        texts.AUDIT_HEAD,
        "|---|---|---|---|",
    ]
    for role in roles:
        via = "; ".join(grant(item) for item in role.get("via") or []) or "—"
        missing = "; ".join(grant(item) for item in role.get("missing") or []) or "—"
        out.append(
            f"| {md(role.get('role'))} | {yes_no(role.get('can_reach'))} | {via} | {missing} |"
        )
    notes = [texts.AUDIT_NOTES.get(str(note)) for note in payload.get("notes") or []]
    out += ["", *(note for note in notes if note)] if any(notes) else []
    return "\n".join(out)
