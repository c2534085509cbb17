"""The plan: what importing dashboards from a source would create or change in a target.

Objects match by UUID (ids are each environment's own); databases by UUID, then by name, or
as ``database_mapping`` says. Comparison is :func:`~sstools.domain.deploy._portable.portable`.
The digest covers the plan, the files to import and the target's current files with their
``changed_on``: it changes when either side changes and is stable when neither does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sstools.domain.deploy import _target
from sstools.domain.deploy._bundle import path_of
from sstools.domain.deploy._connections import existing_connections
from sstools.domain.deploy._portable import (
    MISSING,
    Document,
    ValueBudget,
    chart_ids,
    differences,
    field_values,
    portable,
)
from sstools.domain.deploy._releases import fitted
from sstools.domain.deploy._sources import MappedSources, Sources, map_sources
from sstools.domain.deploy.models import (
    DeploySource,
    FieldChange,
    ObjectChange,
    Plan,
    Translated,
    UnresolvedChart,
)
from sstools.environments import Stage
from sstools.git_store import load as load_yaml
from sstools.superset import SupersetClient, versions
from sstools.texts import deploy as texts

_KINDS = {"dashboards": "dashboard", "charts": "chart", "datasets": "dataset"}
_NAMES = {"dashboards": "dashboard_title", "charts": "slice_name", "datasets": "table_name"}


@dataclass(frozen=True)
class PlannedDeploy:
    plan: Plan
    # dashboard uuid -> the files to import for it, already mapped onto the target's databases
    bundles: dict[str, dict[str, bytes]]
    # every file to import once, the objects on no planned dashboard too (a restore's)
    files: dict[str, bytes]
    # The target as the plan saw it: its objects, and the files of the planned ones the digest
    # covers (sstools.domain.deploy.recent checks them again before reusing the plan).
    found: _target.Inventory | None = None
    target: dict[str, bytes] = field(default_factory=dict)


def _without_the_connections_timeout(
    ours: Document, theirs: Document, target_files: dict[str, bytes]
) -> tuple[Document, Document]:
    """A dataset's export says its database's ``cache_timeout`` where it has none of its own,
    and that is the target connection's setting, never the deploy's: unset on our side and
    the connection's on theirs is no change (else every plan would re-import, never settle)."""
    database = target_files.get(path_of("databases", str(ours.get("database_uuid"))))
    connection = (load_yaml(database) or {}).get("cache_timeout") if database else None
    if connection is None or theirs.get("cache_timeout") != connection:
        return ours, theirs
    if ours.get("cache_timeout") not in (None, connection):
        return ours, theirs
    drop = "cache_timeout"
    return (
        {key: value for key, value in ours.items() if key != drop},
        {key: value for key, value in theirs.items() if key != drop},
    )


def _taken_off(chart: UnresolvedChart, target_files: dict[str, bytes]) -> UnresolvedChart:
    """``chart`` marked removed when the target's copy of its dashboard shows it: the import
    rewrites that dashboard without a chart it could not import."""
    current = target_files.get(path_of("dashboards", str(chart.dashboard_uuid)))
    position = (load_yaml(current) or {}).get("position") if current else None
    if chart.uuid not in chart_ids(position).values():
        return chart
    return chart.model_copy(update={"removed_from_target": True, "message": texts.CHART_REMOVED})


def _field_changes(found: list[tuple[str, Any, Any]], budget: ValueBudget) -> list[FieldChange]:
    """Each difference with its values, bounded (see ``_portable.field_values``)."""
    changes = []
    for path, ours, theirs in found:
        before, after, diff, truncated, omitted = field_values(path, ours, theirs, budget)
        changes.append(
            FieldChange(
                field=path,
                label=texts.field_label(path),
                before=before,
                after=after,
                diff=diff,
                truncated=truncated,
                omitted=omitted,
            )
        )
    return changes


def _change(
    kind: str,
    document: Document,
    found: _target.Inventory,
    target_files: dict[str, bytes],
    budget: ValueBudget,
) -> ObjectChange:
    uuid = str(document["uuid"])
    row = found.get(kind, uuid)
    name = str(document.get(_NAMES[kind], ""))
    if row is None:
        return ObjectChange(
            kind=_KINDS[kind],
            uuid=uuid,
            name=name,
            action="create",
            fields=[],
            target_id=None,
            target_changed_on=None,
        )
    current = target_files.get(path_of(kind, uuid))
    if current is None:  # in the target's list but not in its export: assume it differs
        differing: list[tuple[str, Any, Any]] = [(".", portable(kind, document), MISSING)]
    else:
        theirs = load_yaml(current)
        if kind == "datasets":
            document, theirs = _without_the_connections_timeout(document, theirs, target_files)
        differing = differences(portable(kind, document), portable(kind, theirs))
    fields = [path for path, _, _ in differing]
    return ObjectChange(
        kind=_KINDS[kind],
        uuid=uuid,
        name=name,
        action="update" if fields else "unchanged",
        fields=fields,
        changes=_field_changes(differing, budget),
        target_id=row.id,
        target_changed_on=row.changed_on,
    )


def _digest(
    body: dict[str, Any],
    bundles: dict[str, dict[str, bytes]],
    others: dict[str, bytes],
    target: dict[str, bytes],
) -> str:
    def hashes(files: Mapping[str, bytes]) -> dict[str, str]:
        return {path: hashlib.sha256(content).hexdigest() for path, content in files.items()}

    material = {
        "plan": body,
        "bundles": {uuid: hashes(files) for uuid, files in bundles.items()},
        "others": hashes(others),
        "target": hashes(target),
    }
    text = json.dumps(material, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def build_plan(
    mapped: MappedSources,
    *,
    source: DeploySource,
    target_env_id: str,
    target_stage: Stage,
    found: _target.Inventory,
    target_files: dict[str, bytes],
    origin: str = "",
    releases: tuple[versions.Release | None, versions.Release | None] = (None, None),
    translated: list[Translated] | None = None,
) -> PlannedDeploy:
    """The plan from the mapped source files and the target's inventory and files (no I/O).

    ``origin`` follows the target in the summary (« из копии …» for a restore); ``releases``
    the source's and the target's Superset, ``translated`` what was fitted to the target's.
    """
    changes: dict[str, ObjectChange] = {}
    budget = ValueBudget()  # the plan's values in all are bounded, not only each field's

    def change(path: str, document: Document) -> ObjectChange:
        if path not in changes:
            changes[path] = _change(path.split("/")[0], document, found, target_files, budget)
        return changes[path]

    changed_dashboards: list[str] = []
    for dashboard in mapped.dashboards:
        own = [
            change(path, document)
            for path, document in sorted(dashboard.documents.items())
            if not path.startswith("databases/")
        ]
        if any(one.action != "unchanged" for one in own):
            changed_dashboards.append(dashboard.title)
    for path, document in sorted(mapped.others.documents.items()):
        if not path.startswith("databases/"):
            change(path, document)
    for mapping in mapped.databases:
        row = found.get("databases", mapping.target_uuid or "")
        if row is not None:  # used as it is: never created nor written by a deploy
            changes[path_of("databases", row.uuid)] = ObjectChange(
                kind="database",
                uuid=row.uuid,
                name=row.name,
                action="unchanged",
                fields=[],
                target_id=row.id,
                target_changed_on=row.changed_on,
            )
    order = {"dashboard": 0, "chart": 1, "dataset": 2, "database": 3}
    objects = sorted(changes.values(), key=lambda c: (order[c.kind], c.name, c.uuid))
    rewritten = {change.uuid for change in objects if change.kind == "dashboard"}
    rewritten &= {
        uuid for uuid in rewritten if changes[path_of("dashboards", uuid)].action == "update"
    }
    unresolved = [
        _taken_off(chart, target_files) if chart.dashboard_uuid in rewritten else chart
        for chart in mapped.unresolved()
    ]
    bundles = {dashboard.uuid: dashboard.files() for dashboard in mapped.dashboards}
    others = mapped.others.files()
    planned = {path: target_files[path] for path in changes if path in target_files}
    connections = existing_connections(mapped, found, target_files)
    databases = [  # each source database and the target's it maps onto
        row.model_copy(update={"pinned": row.source_uuid in connections.pinned})
        for row in mapped.databases
    ]
    body: dict[str, Any] = {
        "source": source.model_dump(mode="json"),
        "target_env_id": target_env_id,
        "target_stage": target_stage.value,
        "dashboards": [c.model_dump(mode="json") for c in objects if c.kind == "dashboard"],
        "objects": [c.model_dump(mode="json") for c in objects],
        "databases": [d.model_dump(mode="json") for d in databases],
        "target_databases": [
            {"uuid": db.uuid, "name": db.name}
            for db in sorted(found.databases(), key=lambda db: (db.name, db.uuid))
        ],
        "unresolved_charts": [u.model_dump(mode="json") for u in unresolved],
        "dashboards_changed": len(changed_dashboards),
        "applicable": all(d.target_uuid is not None for d in databases) and not connections.moved,
    }
    body["summary"] = texts.plan_summary(
        changed_dashboards,
        len(mapped.dashboards),
        target_env_id,
        unresolved,
        origin,
        created={
            change.name
            for change in objects
            if change.kind == "dashboard" and change.action == "create"
        },
        removed=[chart.name for chart in unresolved if chart.removed_from_target],
    )
    if connections.moved:
        body["summary"] += texts.datasets_not_moved(connections.moved, target_env_id)
    body["source_release"] = versions.shown(releases[0]) if releases[0] else None
    body["target_release"] = versions.shown(releases[1]) if releases[1] else None
    body["translated"] = [one.model_dump(mode="json") for one in translated or []]
    if translated:
        body["summary"] += ". " + texts.translated(
            versions.shown(releases[1]), [(one.field, one.objects) for one in translated]
        )
    plan = Plan.model_validate({**body, "digest": _digest(body, bundles, others, planned)})
    return PlannedDeploy(
        plan=plan, bundles=bundles, files=mapped.files(), found=found, target=planned
    )


async def plan_sources(
    target: SupersetClient,
    sources: Sources,
    *,
    source: DeploySource,
    target_stage: Stage,
    database_mapping: Mapping[str, str] | None = None,
    origin: str = "",
    inventories: _target.Inventories | None = None,
    target_known: Mapping[str, bytes] | None = None,
    source_release: versions.Release | None = None,
) -> PlannedDeploy:
    """Plan importing ``sources`` (see :func:`read_sources`) into ``target``.

    What :func:`make_plan` does once it has read its sources; a restore plans its archive so.
    ``inventories``: the target's lists as the caller's span has them (else listed here);
    ``target_known``: target files the caller holds already (not exported again);
    ``source_release``: the source's Superset, when it is an environment (the refusal names it).

    Raises:
        InvalidPlanRequest: ``database_mapping`` names no database of the target.
        VersionSkew: the target's release has no place for a source field's content.
        SupersetError: the target did not answer.
    """
    found = await (inventories.of(target) if inventories else _target.inventory(target))
    target_release = await target.release()
    sources, translated = fitted(
        sources, source=source_release, target=target_release, target_env_id=target.env.id
    )
    mapped = map_sources(sources, found, database_mapping)
    files = await _target.target_files(target, found, mapped.wanted(), target_known)
    return build_plan(
        mapped,
        source=source,
        target_env_id=target.env.id,
        target_stage=target_stage,
        found=found,
        target_files=files,
        origin=origin,
        releases=(source_release, target_release),
        translated=translated,
    )
