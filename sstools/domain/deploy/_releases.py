"""A plan's sources fitted to the target's Superset release (see ``sstools.superset.versions``).

Every file a plan would import is fitted before the plan is made, so a deploy, a migration, a
rollback or a restore into an older release either imports what that release takes (the plan
says what was taken out) or is refused before its first write, naming both releases and the
first field with content the target has no place for.
"""

from __future__ import annotations

import copy
from collections import Counter

from sstools.domain.deploy._portable import Document
from sstools.domain.deploy._sources import Sources
from sstools.domain.deploy.errors import VersionSkew
from sstools.domain.deploy.models import Translated
from sstools.superset import versions
from sstools.superset.versions import Release


def _fit(
    documents: dict[str, Document], target: Release | None, found: list[versions.Dropped]
) -> dict[str, Document]:
    fitted: dict[str, Document] = {}
    for path, document in documents.items():
        kind = path.split("/", 1)[0]
        if not versions.not_taken(kind, target):
            fitted[path] = document
            continue
        mine = copy.deepcopy(document)
        found.extend(versions.fit_for(kind, mine, target))
        fitted[path] = mine
    return fitted


def fitted(
    sources: Sources, *, source: Release | None, target: Release | None, target_env_id: str
) -> tuple[Sources, list[Translated]]:
    """``sources`` as ``target``'s release takes them, and what was taken out, field by field.

    Raises:
        VersionSkew: a field with content ``target`` has no place for (nothing is written).
    """
    dropped: list[versions.Dropped] = []
    try:
        dashboards = {
            uuid: _fit(documents, target, dropped) for uuid, documents in sources.dashboards.items()
        }
        others = _fit(sources.others, target, dropped)
    except versions.FieldNotTaken as refused:
        raise VersionSkew(
            source=versions.shown(source) if source else None,
            target=versions.shown(target),
            target_env_id=target_env_id,
            kind=refused.kind,
            name=refused.name,
            field=refused.field,
        ) from refused
    counted = Counter((one.kind, one.field, one.had_content) for one in dropped)
    translated = [
        Translated(kind=kind, field=field, objects=count, had_content=had)
        for (kind, field, had), count in sorted(counted.items())
    ]
    return Sources(dashboards, others), translated
