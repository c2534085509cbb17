"""A dashboard's files and the ZIP Superset imports: gathered by UUID, mapped onto the target.

The files are the repository's (normalised, ``<kind>/<uuid>.yaml``): a dashboard names its
charts in its layout, a chart its dataset, a dataset its database, so one dashboard's files can
be read from an export or a git ref alike. Mapping points the datasets at the TARGET's database
and bundles that database under the target's own UUID: Superset's dashboard, chart and dataset
imports all import a bundled database with ``overwrite=False``, so an existing connection (and
its password) is returned untouched, never rewritten.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from sstools.domain.deploy._portable import Document
from sstools.domain.deploy.models import UnresolvedChart
from sstools.git_store import clean_database, dump
from sstools.git_store import load as load_yaml
from sstools.texts import deploy as texts

# paths -> the files among them that exist (a branch's or an export's)
Reader = Callable[[list[str]], dict[str, bytes]]

IMPORT_VERSION = "1.0.0"
_ROOT = "sstools_bundle"
_STAMP = (1980, 1, 1, 0, 0, 0)  # fixed entry times: the same files give the same bytes


@dataclass(frozen=True)
class TargetDatabase:
    id: int
    uuid: str
    name: str
    changed_on: datetime | None


@dataclass
class Mapped:
    """Documents ready to import into the target, and the charts left out."""

    documents: dict[str, Document] = field(default_factory=dict)
    unresolved: list[UnresolvedChart] = field(default_factory=list)

    def files(self) -> dict[str, bytes]:
        return {path: dump(document) for path, document in sorted(self.documents.items())}


@dataclass(kw_only=True)
class MappedDashboard(Mapped):
    """One dashboard's documents ready to import into the target, and the charts left out."""

    uuid: str
    title: str


def path_of(kind: str, uuid: str) -> str:
    return f"{kind}/{uuid}.yaml"


def uuid_of(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".yaml")


def _load(read: Reader, kind: str, uuids: set[str]) -> dict[str, Document]:
    found = read(sorted(path_of(kind, uuid) for uuid in uuids))
    documents = {path: load_yaml(content) for path, content in found.items()}
    return {path: document for path, document in documents.items() if isinstance(document, dict)}


def chart_uuids(dashboard: Document) -> set[str]:
    position = dashboard.get("position")
    nodes = position.values() if isinstance(position, dict) else []
    return {
        str(node["meta"]["uuid"])
        for node in nodes
        if isinstance(node, dict)
        and node.get("type") == "CHART"
        and isinstance(node.get("meta"), dict)
        and node["meta"].get("uuid")
    }


def _filter_dataset_uuids(dashboard: Document) -> set[str]:
    metadata = dashboard.get("metadata")
    filters = metadata.get("native_filter_configuration") if isinstance(metadata, dict) else None
    return {
        str(target["datasetUuid"])
        for native_filter in filters or []
        if isinstance(native_filter, dict)
        for target in native_filter.get("targets") or []
        if isinstance(target, dict) and target.get("datasetUuid")
    }


def collect(read: Reader, dashboard_uuid: str) -> dict[str, Document] | None:
    """The dashboard with its charts, datasets and databases; None if it is not there."""
    documents = _load(read, "dashboards", {dashboard_uuid})
    if not documents:
        return None
    (dashboard,) = documents.values()
    charts = _load(read, "charts", chart_uuids(dashboard))
    dataset_uuids = _filter_dataset_uuids(dashboard) | {
        str(chart["dataset_uuid"]) for chart in charts.values() if chart.get("dataset_uuid")
    }
    datasets = _load(read, "datasets", dataset_uuids)
    database_uuids = {
        str(dataset["database_uuid"])
        for dataset in datasets.values()
        if dataset.get("database_uuid")
    }
    return {**documents, **charts, **datasets, **_load(read, "databases", database_uuids)}


def documents_of(documents: dict[str, Document], kind: str) -> dict[str, Document]:
    return {path: doc for path, doc in documents.items() if path.startswith(f"{kind}/")}


def map_documents(
    documents: dict[str, Document], databases: Mapping[str, TargetDatabase | None]
) -> Mapped:
    """The documents with datasets on the target's databases; what cannot resolve is left out.

    Dashboards are kept as they are; a chart is kept when its dataset is; ``unresolved`` names
    no dashboard (see :func:`map_onto_target`).
    """
    mapped = documents_of(documents, "dashboards")
    source_databases = {doc["uuid"]: doc for doc in documents_of(documents, "databases").values()}
    kept_datasets: set[str] = set()
    for dataset in documents_of(documents, "datasets").values():
        target = databases.get(str(dataset.get("database_uuid")))
        source_db = source_databases.get(str(dataset.get("database_uuid")))
        if target is None or source_db is None:
            continue
        mapped[path_of("datasets", dataset["uuid"])] = {**dataset, "database_uuid": target.uuid}
        # The source's settings under the target's identity: Superset keeps the existing one.
        # Cleaned again: a branch or an archive written by an older sstools may hold secrets.
        database = clean_database({**source_db, "uuid": target.uuid, "database_name": target.name})
        mapped[path_of("databases", target.uuid)] = database
        kept_datasets.add(str(dataset["uuid"]))
    unresolved: list[UnresolvedChart] = []
    for chart in documents_of(documents, "charts").values():
        dataset_uuid = chart.get("dataset_uuid")
        if dataset_uuid is not None and str(dataset_uuid) in kept_datasets:
            mapped[path_of("charts", chart["uuid"])] = chart
            continue
        missing = dataset_uuid is None or path_of("datasets", str(dataset_uuid)) not in documents
        unresolved.append(
            UnresolvedChart(
                dashboard_uuid=None,
                uuid=str(chart["uuid"]),
                name=str(chart.get("slice_name", "")),
                dataset_uuid=None if dataset_uuid is None else str(dataset_uuid),
                reason="dataset_missing" if missing else "database_unmapped",
                message=(texts.CHART_WITHOUT_DATASET if missing else texts.DATABASE_UNMAPPED),
            )
        )
    return Mapped(mapped, sorted(unresolved, key=lambda chart: (chart.name, chart.uuid)))


def map_onto_target(
    dashboard_uuid: str,
    documents: dict[str, Document],
    databases: Mapping[str, TargetDatabase | None],
) -> MappedDashboard:
    """One dashboard's documents (see :func:`collect`) mapped as :func:`map_documents` does."""
    (dashboard,) = documents_of(documents, "dashboards").values()
    mapped = map_documents(documents, databases)
    return MappedDashboard(
        mapped.documents,
        [c.model_copy(update={"dashboard_uuid": dashboard_uuid}) for c in mapped.unresolved],
        uuid=dashboard_uuid,
        title=str(dashboard.get("dashboard_title", "")),
    )


def import_zip(files: dict[str, bytes]) -> bytes:
    """A ZIP that Superset's dashboard, chart and dataset imports all accept.

    ``metadata.yaml`` names no ``type``: Superset checks the type only when it is given, so the
    one archive serves ``/api/v1/{dataset,chart,dashboard}/import/``.
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        entries = {"metadata.yaml": dump({"version": IMPORT_VERSION}), **files}
        for path, content in sorted(entries.items()):
            archive.writestr(zipfile.ZipInfo(f"{_ROOT}/{path}", _STAMP), content)
    return buffer.getvalue()
