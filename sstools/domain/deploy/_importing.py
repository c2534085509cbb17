"""One deploy's writes: everything it changes, in as few of Superset's import calls as it takes.

Superset's assets import (``POST /api/v1/assets/import/``, sparse) takes datasets, charts and
dashboards in one transaction, each overwritten, and finds whatever the bundle refers to without
carrying it (a chart's dataset, a dashboard's charts, a dataset's database) among the target's
own objects by UUID. So it is given exactly what the plan creates or changes: an unchanged object
is not written (its ``changed_on`` stays), no database is in it (that import would overwrite the
connection) and the deploy lands whole or not at all. What it cannot take goes to the dashboard
import (:func:`~sstools.domain.deploy._target.import_bundle`), one call for all of them, after it:

- a dashboard naming a chart that is not imported (left out: its dataset is gone) — the plan
  says the dashboard import takes it off, while the assets import stops linking a dashboard's
  charts at the first one it cannot find; one with no chart, a theme or tags (which only the
  dashboard import handles);
- everything, as before (the dataset, chart and dashboard imports, overwriting), when a changed
  chart's dataset is neither imported nor in the target or an object carries tags; and when the
  service account may not use the assets import (403, nothing written).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import anyio.to_thread
from pydantic import BaseModel

from sstools.domain.deploy._bundle import chart_uuids, collect, import_zip, uuid_of
from sstools.domain.deploy._portable import Document
from sstools.domain.deploy._target import Inventory, import_bundle
from sstools.git_store import load as load_yaml
from sstools.superset import SupersetClient, SupersetForbidden, versions


class ImportSet(BaseModel):
    """What one task imports: the files of every dashboard it changes, and how (see module)."""

    bundle: str  # their files' key (sstools.domain.deploy.bundles)
    sparse: list[str]  # paths the assets import takes: what the plan creates or changes
    sparse_titles: list[str]  # the dashboards whose changes that import lands
    whole: list[str]  # paths the dashboard import takes (its dashboards with their files)
    whole_titles: list[str]
    whole_kinds: list[str]  # the kind folders it writes: dashboards, or all when all go there


def _kind(path: str) -> str:
    return path.split("/", 1)[0]


def _tagged(document: Document) -> bool:
    return bool(document.get("tags"))


def _fits_sparse(path: str, document: Document, datasets: set[str], found: Inventory) -> bool:
    """A changed chart or dataset the assets import can take: what it refers to is there."""
    if _tagged(document):
        return False
    if _kind(path) == "charts":
        dataset = str(document.get("dataset_uuid"))
        return dataset in datasets or found.get("datasets", dataset) is not None
    if _kind(path) == "datasets":
        return found.get("databases", str(document.get("database_uuid"))) is not None
    return True


def _needs_dashboard_import(
    document: Document, files: Mapping[str, bytes], charts: set[str], found: Inventory
) -> bool:
    named = chart_uuids(document)
    if not named or document.get("theme_uuid") or _tagged(document):
        return True
    return any(
        f"charts/{uuid}.yaml" not in files
        or (uuid not in charts and found.get("charts", uuid) is None)
        for uuid in named
    )


def _with_their_files(files: Mapping[str, bytes], dashboards: list[str]) -> list[str]:
    """The dashboards' paths with their charts', datasets' and databases' (what the dashboard
    import needs to link them)."""

    def read(paths: list[str]) -> dict[str, bytes]:
        return {path: files[path] for path in paths if path in files}

    found: set[str] = set()
    for path in dashboards:
        found |= set(collect(read, uuid_of(path)) or {})
    return sorted(found)


def split_imports(
    dashboards: Mapping[str, Mapping[str, bytes]],
    titles: Mapping[str, str],
    changed: Collection[str],
    found: Inventory,
) -> tuple[dict[str, bytes], ImportSet]:
    """The files of the ``dashboards`` that change (uuid -> their mapped files) as one bundle,
    and how to import it (``bundle`` left empty for the caller to save).

    ``changed``: the UUIDs the plan creates or changes; ``found``: the target as it saw it.
    """
    moving = {
        uuid: own
        for uuid, own in dashboards.items()
        if any(uuid_of(path) in changed for path in own if _kind(path) != "databases")
    }
    files = {path: content for own in moving.values() for path, content in own.items()}
    wanted = sorted(p for p in files if _kind(p) != "databases" and uuid_of(p) in changed)
    documents: dict[str, Document] = {path: load_yaml(files[path]) or {} for path in wanted}
    datasets = {uuid_of(path) for path in wanted if _kind(path) == "datasets"}
    charts = {uuid_of(path) for path in wanted if _kind(path) == "charts"}
    if not all(
        _fits_sparse(path, document, datasets, found) for path, document in documents.items()
    ):
        every = sorted(files)
        kinds = sorted({_kind(path) for path in wanted})
        names = [titles.get(uuid, uuid) for uuid in moving]
        return files, ImportSet(
            bundle="",
            sparse=[],
            sparse_titles=[],
            whole=every,
            whole_titles=names,
            whole_kinds=kinds,
        )
    whole = {
        uuid_of(path)
        for path in wanted
        if _kind(path) == "dashboards"
        and _needs_dashboard_import(documents[path], files, charts, found)
    }
    return files, ImportSet(
        bundle="",
        sparse=[path for path in wanted if uuid_of(path) not in whole],
        sparse_titles=[titles.get(uuid, uuid) for uuid in moving if uuid not in whole],
        whole=_with_their_files(files, [f"dashboards/{uuid}.yaml" for uuid in sorted(whole)]),
        whole_titles=[titles.get(uuid, uuid) for uuid in moving if uuid in whole],
        whole_kinds=["dashboards"] if whole else [],
    )


async def import_sparse(
    superset: SupersetClient, files: Mapping[str, bytes], imports: ImportSet
) -> bool:
    """The assets import of ``imports.sparse``; True when it has imported the dashboard import's
    part too: everything the old way, when the service account may not use the assets import
    or the target's release cannot take a sparse one (before 6.0 it would want every database)."""
    kinds = {_kind(path) for path in imports.sparse} | set(imports.whole_kinds)
    if not versions.takes_sparse_assets_import(await superset.release()):
        await import_bundle(superset, dict(files), kinds)
        return True
    bundle = await anyio.to_thread.run_sync(
        import_zip, {path: files[path] for path in imports.sparse}
    )
    try:
        await superset.import_assets(bundle)
    except SupersetForbidden:
        await import_bundle(superset, dict(files), kinds)
        return True
    return False


async def import_whole(
    superset: SupersetClient, files: Mapping[str, bytes], imports: ImportSet
) -> None:
    """The dashboard import's part of ``imports`` (see :func:`import_bundle`)."""
    await import_bundle(
        superset, {path: files[path] for path in imports.whole}, imports.whole_kinds
    )
