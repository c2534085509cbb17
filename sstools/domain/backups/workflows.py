"""The durable tasks behind a backup and a restore (see docs/backups.md).

Backup: export the whole environment into ``<stamp>.zip.part``; re-read it against its manifest
and only then rename it into place; then remove the oldest archives beyond the retention count.
A backup cancelled during its export removes the ``.part`` as it stops.
Restore: check the archive again (it may have changed since the request was accepted), check the
target's databases answer, then import the mapped files. Every step is safe to run again after a
restart: the export rewrites its ``.part``, the check reads, an import overwrites.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sstools import clock
from sstools.domain.backups import archive
from sstools.domain.backups.errors import ArchiveCorrupt
from sstools.domain.backups.plan import export_environment, map_archive, superset_version
from sstools.domain.deploy import import_bundle
from sstools.superset import SupersetPool
from sstools.tasks import (
    CANCELLATION,
    PASS_THROUGH,
    TaskFailed,
    context,
    failing_as,
    task_step,
    task_workflow,
    with_superset,
)
from sstools.texts import backups as texts


def _backup_dir() -> Path:
    return context().settings.backup_dir


def _export(backup_id: str, env_id: str, started_by: str, task_id: str) -> dict[str, Any]:
    """Export ``env_id`` into the archive's ``.part`` file; its counts and size."""

    async def work(pool: SupersetPool) -> tuple[str, dict[str, bytes]]:
        client = pool.client(env_id)
        return await superset_version(client), await export_environment(client)

    version, files = with_superset(work)
    manifest = archive.Manifest(
        id=backup_id,
        env_id=env_id,
        superset_version=version,
        created_at=clock.now(),
        created_by=started_by,
        task_id=task_id,
        counts=archive.counts_of(files),
        files={path: archive.sha256(content) for path, content in sorted(files.items())},
    )
    content = archive.build(manifest, files)
    archive.write(archive.part_of(archive.path_of(_backup_dir(), backup_id)), content)
    return {"counts": manifest.counts, "superset_version": version}


def _verify(backup_id: str) -> dict[str, Any]:
    """Re-read the written archive against its manifest; only a whole one is renamed into place."""
    final = archive.path_of(_backup_dir(), backup_id)
    part = archive.part_of(final)
    if part.exists():  # else a restart after the rename: check the archive in place
        archive.read(part, final.name)
        part.replace(final)
    archive.read(final)
    found = archive.info(final)
    return {"bytes": found.bytes, "archive_sha256": found.archive_sha256, "files": found.files}


def _discard_part(backup_id: str) -> None:
    archive.part_of(archive.path_of(_backup_dir(), backup_id)).unlink(missing_ok=True)


def _prune(env_id: str) -> list[str]:
    return archive.prune(_backup_dir(), env_id, context().settings.backup_keep)


@task_workflow
def run_backup(task_id: str, backup_id: str, env_id: str, started_by: str) -> dict[str, Any]:
    """Export → verify → retention; the archive's id, counts, size and what retention removed."""
    try:
        with failing_as(texts.EXPORT_FAILED, env=env_id):
            exported = task_step(
                task_id, 1, 3, texts.STEP_EXPORT, _export, backup_id, env_id, started_by, task_id
            )
    except CANCELLATION:  # cancelled during the export, which wrote its unverified .part
        _discard_part(backup_id)
        raise
    try:
        verified = task_step(task_id, 2, 3, texts.STEP_VERIFY, _verify, backup_id)
    except CANCELLATION:  # before the verify step began: the .part is of no use
        _discard_part(backup_id)
        raise
    except PASS_THROUGH:
        raise
    except ArchiveCorrupt as exc:  # the written file does not read back: keep the old ones
        _discard_part(backup_id)
        raise TaskFailed(str(exc)) from exc
    removed = task_step(task_id, 3, 3, texts.STEP_RETENTION, _prune, env_id)
    return {"backup_id": backup_id, "env_id": env_id, **exported, **verified, "removed": removed}


def _check_archive(backup_id: str) -> dict[str, int]:
    manifest, _ = archive.read(archive.path_of(_backup_dir(), backup_id), backup_id)
    return manifest.counts


def _check_databases(backup_id: str, env_id: str) -> None:
    _, files = archive.read(archive.path_of(_backup_dir(), backup_id), backup_id)

    async def work(pool: SupersetPool) -> None:
        client = pool.client(env_id)
        for mapping in (await map_archive(client, files, backup_id)).databases:
            if mapping.target_id is not None:
                # Listing schemas opens a connection to the database itself, not only to Superset.
                await client.list_schemas(mapping.target_id)

    with_superset(work)


def _import(backup_id: str, env_id: str) -> dict[str, Any]:
    _, files = archive.read(archive.path_of(_backup_dir(), backup_id), backup_id)

    async def work(pool: SupersetPool) -> dict[str, Any]:
        client = pool.client(env_id)
        mapped = await map_archive(client, files, backup_id)
        bundle = mapped.files()
        await import_bundle(client, bundle)
        return {
            "imported": archive.counts_of(bundle),
            "not_imported_charts": sorted({chart.name for chart in mapped.unresolved()}),
        }

    return with_superset(work)


@task_workflow
def run_restore(task_id: str, backup_id: str, env_id: str) -> dict[str, Any]:
    """Check the archive → check the target's databases → import; counts of what was imported."""
    report: dict[str, Any] = {"backup_id": backup_id, "target_env_id": env_id}
    failed = {**report, "imported": None}
    with failing_as("{error}", failed):  # the archive's own refusal (ArchiveCorrupt) says it
        counts = task_step(task_id, 1, 3, texts.STEP_VERIFY, _check_archive, backup_id)
    with failing_as(texts.TARGET_UNREACHABLE, failed, env=env_id):
        task_step(task_id, 2, 3, texts.STEP_CONNECTIVITY, _check_databases, backup_id, env_id)
    with failing_as(texts.IMPORT_FAILED, failed, env=env_id):
        imported = task_step(task_id, 3, 3, texts.STEP_IMPORT, _import, backup_id, env_id)
    return {**report, "archive_counts": counts, **imported}
