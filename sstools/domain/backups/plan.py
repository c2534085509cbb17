"""What restoring a backup into an environment would change: a deploy plan of the whole archive.

The archive's files are planned by deploy's own code (``read_sources`` → ``plan_sources``): every
dashboard with its charts and datasets, plus the charts and datasets on no dashboard. Datasets
point at the target's connection (matched by UUID, then by name), each database is bundled under
the target's own UUID and name so Superset keeps the existing connection untouched, charts
without a dataset in the archive are left out, and each object is compared with the target's by
deploy's portable comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio.to_thread

from sstools.domain.deploy import (
    DeploySource,
    MappedSources,
    Plan,
    PlannedDeploy,
    Sources,
    fitted,
    inventory,
    map_sources,
    plan_sources,
    read_sources,
)
from sstools.environments import Stage
from sstools.git_store import normalise
from sstools.superset import SupersetClient, versions
from sstools.texts import backups as texts


class RestorePlan(Plan):
    """A deploy plan of the archive (``source.env_id``: the environment it was taken from)."""

    backup_id: str


@dataclass(frozen=True)
class PlannedRestore:
    plan: RestorePlan
    files: dict[str, bytes]  # what to import, mapped onto the target's databases


async def export_environment(superset: SupersetClient) -> dict[str, bytes]:
    """Every dashboard, chart, dataset and database, normalised (secrets stripped)."""
    response = await superset.request("GET", "/api/v1/assets/export/")
    return await anyio.to_thread.run_sync(normalise, response.content)


async def superset_version(superset: SupersetClient) -> str:
    """The release the environment runs, e.g. ``6.1.0`` (``unknown`` when it does not say)."""
    release = await superset.release()
    return versions.shown(release) if release else "unknown"


def archive_sources(files: dict[str, bytes], backup_id: str) -> Sources:
    """Every dashboard of the archive with its files, and every other file of it."""

    def read(paths: list[str]) -> dict[str, bytes]:
        return {path: files[path] for path in paths if path in files}

    dashboards = sorted(
        path.removeprefix("dashboards/").removesuffix(".yaml")
        for path in files
        if path.startswith("dashboards/")
    )
    others = [path for path in files if not path.startswith("dashboards/")]
    where = texts.WHERE.format(id=backup_id)
    return read_sources(read, dashboards, where=where, others=others)


async def map_archive(
    superset: SupersetClient, files: dict[str, bytes], backup_id: str
) -> MappedSources:
    """The archive mapped onto the target's databases and fitted to its Superset release,
    without comparing (the restore task's)."""
    sources = await anyio.to_thread.run_sync(archive_sources, files, backup_id)
    release = await superset.release()
    sources, _ = fitted(sources, source=None, target=release, target_env_id=superset.env.id)
    return map_sources(sources, await inventory(superset))


def _restore(planned: PlannedDeploy, backup_id: str) -> PlannedRestore:
    plan = RestorePlan.model_validate({**planned.plan.model_dump(), "backup_id": backup_id})
    return PlannedRestore(plan, planned.files)


async def plan_restore(
    superset: SupersetClient,
    *,
    backup_id: str,
    source_env_id: str,
    target_stage: Stage,
    files: dict[str, bytes],
    source_version: str | None = None,
) -> PlannedRestore:
    """Plan restoring the (verified) archive ``files`` into ``superset``'s environment
    (``source_version``: the Superset the backup was taken from, as its manifest says)."""
    sources = await anyio.to_thread.run_sync(archive_sources, files, backup_id)
    planned = await plan_sources(
        superset,
        sources,
        source=DeploySource(env_id=source_env_id),
        target_stage=target_stage,
        origin=texts.ORIGIN.format(id=backup_id),
        source_release=versions.parse(source_version),
    )
    return _restore(planned, backup_id)
