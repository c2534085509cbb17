"""What the target's existing datasets say about a plan's database mapping.

Superset's import cannot move a dataset that exists in the target to another connection: it
inserts a second copy and fails on a unique constraint. So a source database whose datasets
exist in the target on their connection is pinned to it, and a mapping that would move one
makes the plan inapplicable.
"""

from __future__ import annotations

from dataclasses import dataclass

from sstools.domain.deploy import _target
from sstools.domain.deploy._sources import MappedSources
from sstools.git_store import load as load_yaml


@dataclass(frozen=True)
class Connections:
    """What the target's existing datasets say about the mapping."""

    pinned: set[str]  # source databases whose datasets exist in the target on their connection
    moved: list[tuple[str, str]]  # (dataset, the connection it is on) a mapping would move


def existing_connections(
    mapped: MappedSources, found: _target.Inventory, target_files: dict[str, bytes]
) -> Connections:
    """Which source databases are pinned to their connection, and which datasets the mapping
    would move; a target file naming no connection tells neither."""
    documents = dict(mapped.others.documents)
    for dashboard in mapped.dashboards:
        documents |= dashboard.documents
    found_connections = {db.uuid: db.name for db in found.databases()}
    pinned: set[str] = set()
    moved: list[tuple[str, str]] = []
    for path, document in sorted(documents.items()):
        if not path.startswith("datasets/") or path not in target_files:
            continue
        there = load_yaml(target_files[path])
        now = there.get("database_uuid") if isinstance(there, dict) else None
        if now is None:
            continue
        if now == document.get("database_uuid"):
            pinned.add(mapped.dataset_databases.get(path, ""))
        else:
            name = str(document.get("table_name") or path)
            moved.append((name, found_connections.get(str(now), str(now))))
    return Connections(pinned, moved)
