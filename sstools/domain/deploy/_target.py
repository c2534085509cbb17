"""The target environment as a plan sees it: which objects it holds (by UUID) and their files."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import anyio.to_thread
from pydantic import TypeAdapter

from sstools.domain.deploy._bundle import TargetDatabase, import_zip
from sstools.git_store import normalise
from sstools.superset import SupersetClient
from sstools.superset.models import UtcDatetime

_MOMENT: TypeAdapter[UtcDatetime | None] = TypeAdapter(UtcDatetime | None)

# kind folder -> (list resource, name column, changed-on column)
_LISTS = {
    "dashboards": ("dashboard", "dashboard_title", "changed_on_utc"),
    "charts": ("chart", "slice_name", "changed_on_utc"),
    "datasets": ("dataset", "table_name", "changed_on_utc"),
    "databases": ("database", "database_name", "changed_on"),
}


@dataclass(frozen=True)
class TargetObject:
    id: int
    uuid: str
    name: str
    changed_on: datetime | None


@dataclass(frozen=True)
class Inventory:
    """Every dashboard, chart, dataset and database of the target, by kind folder and UUID."""

    objects: dict[str, dict[str, TargetObject]]

    def get(self, kind: str, uuid: str) -> TargetObject | None:
        return self.objects.get(kind, {}).get(uuid)

    def databases(self) -> list[TargetDatabase]:
        return [
            TargetDatabase(row.id, row.uuid, row.name, row.changed_on)
            for row in self.objects.get("databases", {}).values()
        ]


def _row(raw: dict[str, Any], name: str, changed_on: str) -> TargetObject:
    return TargetObject(
        id=int(raw["id"]),
        uuid=str(raw["uuid"]),
        name=str(raw.get(name) or ""),
        changed_on=_MOMENT.validate_python(raw.get(changed_on)),
    )


async def inventory(
    superset: SupersetClient, dashboards: list[dict[str, Any]] | None = None
) -> Inventory:
    """Four list queries, concurrently: the target's objects with ids and ``changed_on``.

    ``dashboards``: the target's dashboard rows the caller has listed already (with the same
    columns): not listed again.
    """

    async def one(kind: str) -> tuple[str, dict[str, TargetObject]]:
        resource, name, changed_on = _LISTS[kind]
        given = dashboards if kind == "dashboards" else None
        rows = given or await superset.list_all(resource, columns=["id", "uuid", name, changed_on])
        return kind, {str(row["uuid"]): _row(row, name, changed_on) for row in rows}

    return Inventory(dict(await asyncio.gather(*(one(kind) for kind in _LISTS))))


class Inventories:
    """Each target's inventory listed once for a caller's span: a fleet's drift check plans every
    dashboard into the same few targets, and their four lists do not change while it reads."""

    def __init__(self) -> None:
        self._listed: dict[str, asyncio.Task[Inventory]] = {}

    async def of(
        self, superset: SupersetClient, dashboards: list[dict[str, Any]] | None = None
    ) -> Inventory:
        """The target's inventory (``dashboards``: see :func:`inventory`)."""
        env_id = superset.env.id
        if env_id not in self._listed:
            self._listed[env_id] = asyncio.ensure_future(inventory(superset, dashboards))
        return await asyncio.shield(self._listed[env_id])


async def _export(superset: SupersetClient, resource: str, ids: list[int]) -> dict[str, bytes]:
    if not ids:
        return {}
    response = await superset.request("GET", f"/api/v1/{resource}/export/", query=sorted(ids))
    return await anyio.to_thread.run_sync(normalise, response.content)


async def target_files(
    superset: SupersetClient,
    found: Inventory,
    wanted: dict[str, set[str]],
    known: Mapping[str, bytes] | None = None,
) -> dict[str, bytes]:
    """The target's normalised files of the ``wanted`` UUIDs (by kind folder) it holds.

    Dashboards export with their charts and datasets; what they do not cover (a chart on
    another dashboard, say) is exported on its own. ``known``: the target's files the caller
    has already (a drift check's kept export of the dashboard): not exported again.
    """

    def ids(kind: str, files: dict[str, bytes]) -> list[int]:
        return [
            row.id
            for uuid in wanted.get(kind, set())
            if (row := found.get(kind, uuid)) and f"{kind}/{uuid}.yaml" not in files
        ]

    files = {
        path: (known or {})[path]
        for kind, uuids in wanted.items()
        for uuid in uuids
        if (path := f"{kind}/{uuid}.yaml") in (known or {})
    }
    files |= await _export(superset, "dashboard", ids("dashboards", files))
    files |= await _export(superset, "chart", ids("charts", files))
    files |= await _export(superset, "dataset", ids("datasets", files))
    return files


async def export_dashboards(superset: SupersetClient, ids: list[int]) -> dict[str, bytes]:
    """The target's normalised files of the dashboards with these ids (one export)."""
    return await _export(superset, "dashboard", ids)


async def export_target(superset: SupersetClient, dashboard_uuids: list[str]) -> dict[str, bytes]:
    """The target's current files of those dashboards (for a snapshot); absent ones skipped."""
    found = await inventory(superset)
    return await target_files(superset, found, {"dashboards": set(dashboard_uuids)})


async def import_bundle(
    superset: SupersetClient, files: dict[str, bytes], kinds: Collection[str] | None = None
) -> None:
    """Import the files so the target's objects equal them, then its dashboards.

    Superset's dashboard import overwrites the dashboard only: it keeps existing charts and
    datasets as they are (and creates missing ones). So the same ZIP goes to the dataset import,
    then the chart import (both with overwrite), then the dashboard import; ``kinds`` (kind
    folders) names the ones a plan changes, when it is known: an unchanged one needs no import
    of its own. Databases are never overwritten by any.
    """
    bundle = await anyio.to_thread.run_sync(import_zip, files)
    for resource, kind in (("dataset", "datasets/"), ("chart", "charts/")):
        wanted = kinds is None or kind.rstrip("/") in kinds
        if wanted and any(path.startswith(kind) for path in files):
            await superset.request(
                "POST",
                f"/api/v1/{resource}/import/",
                files={"formData": ("bundle.zip", bundle, "application/zip")},
                data={"overwrite": "true"},
            )
    if any(path.startswith("dashboards/") for path in files):
        await superset.import_dashboards(bundle, overwrite=True)
