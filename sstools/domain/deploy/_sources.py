"""The source side of a plan: each dashboard's files read by UUID, mapped onto the target.

A plan's sources are normalised files (``<kind>/<uuid>.yaml``) behind a reader: an export, a
git ref or a backup archive. Databases match by UUID, then by name, or as ``database_mapping``
says; datasets are pointed at the match and charts that cannot resolve are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from sstools.domain.deploy import _bundle
from sstools.domain.deploy._bundle import (
    Mapped,
    MappedDashboard,
    Reader,
    TargetDatabase,
    documents_of,
    map_documents,
    path_of,
)
from sstools.domain.deploy._portable import Document
from sstools.domain.deploy._target import Inventory
from sstools.domain.deploy.errors import InvalidPlanRequest, UnknownDashboard
from sstools.domain.deploy.models import DatabaseMapping, UnresolvedChart
from sstools.git_store import load as load_yaml
from sstools.texts import deploy as texts


@dataclass(frozen=True)
class Sources:
    """Normalised source documents: each planned dashboard's own, then any further ones."""

    dashboards: dict[str, dict[str, Document]]  # dashboard uuid -> its files (``collect``)
    others: dict[str, Document] = field(default_factory=dict)


@dataclass(frozen=True)
class MappedSources:
    """The sources mapped onto the target's databases (see :func:`map_sources`)."""

    dashboards: list[MappedDashboard]
    others: Mapped  # what no planned dashboard holds, charts left out on none of them
    databases: list[DatabaseMapping]
    # Each dataset's source database (dataset path -> database UUID), as the source had it.
    dataset_databases: dict[str, str] = field(default_factory=dict)

    def wanted(self) -> dict[str, set[str]]:
        """The UUIDs of every planned object, by kind folder (the target files to compare)."""
        wanted: dict[str, set[str]] = {}
        for mapped in (*self.dashboards, self.others):
            for path in mapped.documents:
                kind, name = path.split("/", 1)
                wanted.setdefault(kind, set()).add(name.removesuffix(".yaml"))
        return wanted

    def unresolved(self) -> list[UnresolvedChart]:
        """The charts left out: each dashboard's, then those on no planned dashboard."""
        return [
            *(chart for dashboard in self.dashboards for chart in dashboard.unresolved),
            *self.others.unresolved,
        ]

    def files(self) -> dict[str, bytes]:
        """Every file to import, once (a chart on two dashboards is one file)."""
        merged = dict(self.others.documents)
        for dashboard in self.dashboards:
            merged |= dashboard.documents
        return Mapped(merged).files()


def _resolve_databases(
    sources: Mapping[str, str],
    targets: list[TargetDatabase],
    explicit: Mapping[str, str] | None,
) -> tuple[list[DatabaseMapping], dict[str, TargetDatabase | None]]:
    """Each source database (uuid -> name) paired with a target database, or with nothing."""
    by_uuid = {db.uuid: db for db in targets}
    by_name = {db.name: db for db in targets}
    rows: list[DatabaseMapping] = []
    chosen: dict[str, TargetDatabase | None] = {}
    for uuid, name in sorted(sources.items(), key=lambda item: item[1]):
        wanted = (explicit or {}).get(uuid, (explicit or {}).get(name))
        target: TargetDatabase | None
        if wanted is not None:
            target = by_uuid.get(wanted) or by_name.get(wanted)
            if target is None:
                raise InvalidPlanRequest(
                    "database_mapping",
                    texts.NO_TARGET_DATABASE.format(
                        wanted=wanted, known=", ".join(sorted(by_name)) or texts.NO_DATABASES
                    ),
                )
            matched = "mapping"
        elif (target := by_uuid.get(uuid)) is not None:
            matched = "uuid"
        elif (target := by_name.get(name)) is not None:
            matched = "name"
        else:
            matched = None
        chosen[uuid] = target
        rows.append(
            DatabaseMapping(
                source_uuid=uuid,
                source_name=name,
                target_uuid=target.uuid if target else None,
                target_name=target.name if target else None,
                target_id=target.id if target else None,
                matched_by=matched,
            )
        )
    return rows, chosen


def read_sources(
    read: Reader, dashboard_uuids: Iterable[str], *, where: str, others: Iterable[str] = ()
) -> Sources:
    """Each dashboard's files from ``read`` (normalised files), then the ``others`` paths.

    Raises:
        UnknownDashboard: ``read`` has no such dashboard (``where`` names the source).
    """
    dashboards: dict[str, dict[str, Document]] = {}
    for uuid in dashboard_uuids:
        documents = _bundle.collect(read, uuid)
        if documents is None:
            raise UnknownDashboard(uuid, where)
        dashboards[uuid] = documents
    found = read(sorted(others))
    loaded = {path: load_yaml(content) for path, content in found.items()}
    return Sources(dashboards, {path: doc for path, doc in loaded.items() if isinstance(doc, dict)})


def map_sources(
    sources: Sources, found: Inventory, database_mapping: Mapping[str, str] | None = None
) -> MappedSources:
    """Every source database paired with the target's; each dashboard's files mapped onto it.

    Raises:
        InvalidPlanRequest: ``database_mapping`` names no database of the target.
    """
    union = {path: doc for docs in sources.dashboards.values() for path, doc in docs.items()}
    union |= sources.others
    source_databases = {
        str(doc["uuid"]): str(doc.get("database_name", ""))
        for doc in documents_of(union, "databases").values()
    }
    databases, chosen = _resolve_databases(source_databases, found.databases(), database_mapping)
    dashboards = [
        _bundle.map_onto_target(uuid, documents, chosen)
        for uuid, documents in sources.dashboards.items()
    ]
    everything = map_documents(union, chosen) if sources.others else Mapped()
    covered = {path for dashboard in dashboards for path in dashboard.documents}
    on_dashboards = {path for docs in sources.dashboards.values() for path in docs}
    others = Mapped(
        {path: doc for path, doc in everything.documents.items() if path not in covered},
        [c for c in everything.unresolved if path_of("charts", c.uuid) not in on_dashboards],
    )
    dataset_databases = {
        path: str(doc.get("database_uuid")) for path, doc in documents_of(union, "datasets").items()
    }
    return MappedSources(dashboards, others, databases, dataset_databases)
