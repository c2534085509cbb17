"""``/api/backups``: back up an environment, list the archives, plan and run a restore.

Backup and restore are durable tasks (202 with the task record), admins only; the list and the
restore plan are for anyone signed in (they write nothing). An archive that fails its manifest
is refused (422) before a task starts, and the task checks it again before importing.
See docs/backups.md.
"""

from __future__ import annotations

from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, Path, Query, status
from pydantic import BaseModel, ConfigDict, Field

from sstools.auth.roles import Role
from sstools.domain.api.approval import AdminApplying, Applying, required_digest
from sstools.domain.backups import archive
from sstools.domain.backups.errors import ArchiveCorrupt
from sstools.domain.backups.plan import PlannedRestore, RestorePlan, plan_restore
from sstools.domain.backups.workflows import run_backup, run_restore
from sstools.domain.writes import PlannedWrite, WriteRequestView, audit_write
from sstools.http.auth import AdminUser, CurrentUser
from sstools.http.deps import ServicesDep, find_environment
from sstools.http.errors import field_error
from sstools.http.services import Services
from sstools.ids import ENV_ID_PATTERN
from sstools.tasks import Task, TaskKind, dashboard_key
from sstools.texts import backups as texts

router = APIRouter(prefix="/api/backups", tags=["backups"])

BackupId = Annotated[str, Path(pattern=archive.BACKUP_ID_PATTERN, max_length=100)]
# A backup claims this key in its environment: two backups of one environment never overlap.
BACKUP_CLAIM = "backup:environment"


class BackupRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    env_id: str = Field(max_length=64, pattern=ENV_ID_PATTERN, description="Environment to back up")


class RestorePlanRequest(BaseModel):
    # /docs «Try it out» starts from this (a generated one names the environment "string").
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"target_env_id": "staging"}]}
    )

    target_env_id: str = Field(
        max_length=64, pattern=ENV_ID_PATTERN, description="Environment to restore into"
    )


class RestoreRequest(RestorePlanRequest):
    digest: Annotated[str, required_digest(texts.DIGEST_MISSING)] = Field(
        max_length=128,
        description=(
            "The digest of the restore plan the person approved (POST …/restore/plan); the "
            "target changed since → 409"
        ),
    )


class BackupList(BaseModel):
    backups: list[archive.BackupInfo]
    unreadable: list[str] = Field(description="Archives whose manifest cannot be read")


def _target(services: Services, env_id: str) -> str:
    if env_id not in services.environments:
        known = ", ".join(services.environments)
        raise field_error(
            "target_env_id",
            texts.UNKNOWN_ENV.format(field="target_env_id", env=env_id, known=known),
        )
    return env_id


@router.post("", status_code=status.HTTP_202_ACCEPTED)
async def back_up(body: BackupRequest, services: ServicesDep, user: AdminUser) -> Task:
    """Export the whole environment into a verified archive; a task (kind ``backup``)."""
    env = find_environment(services, body.env_id)
    backup_id = archive.new_id(env.id)
    return await services.tasks.start(
        TaskKind.backup,
        env_id=env.id,
        source=env.id,
        objects=[backup_id],
        object_keys=[BACKUP_CLAIM],
        started_by=user.username,
        workflow=run_backup,
        args=(backup_id, env.id, user.username),
    )


@router.get("")
async def list_backups(
    services: ServicesDep,
    user: CurrentUser,
    env_id: Annotated[str | None, Query(max_length=64, pattern=ENV_ID_PATTERN)] = None,
) -> BackupList:
    """The archives, newest first; of one environment with ``env_id``."""
    root = services.settings.backup_dir

    def gather() -> BackupList:
        envs = [env_id] if env_id else archive.environments_with_backups(root)
        found: list[archive.BackupInfo] = []
        unreadable: list[str] = []
        for one in envs:
            for path in archive.archives(root, one):
                try:
                    found.append(archive.info(path))
                except ArchiveCorrupt:
                    unreadable.append(f"{one}.{path.stem}")
        found.sort(key=lambda row: row.created_at, reverse=True)
        return BackupList(backups=found, unreadable=unreadable)

    listed = await anyio.to_thread.run_sync(gather)
    if env_id and env_id not in services.environments and not listed.backups:
        find_environment(services, env_id)  # 404 naming the known environments
    return listed


async def _verified(
    services: Services, backup_id: str
) -> tuple[archive.Manifest, dict[str, bytes]]:
    path = archive.path_of(services.settings.backup_dir, backup_id)
    return await anyio.to_thread.run_sync(archive.read, path, backup_id)


async def _plan(
    services: Services, backup_id: str, target_env_id: str
) -> tuple[archive.Manifest, PlannedRestore]:
    target = _target(services, target_env_id)
    manifest, files = await _verified(services, backup_id)
    planned = await plan_restore(
        services.superset.client(target),
        backup_id=backup_id,
        source_env_id=manifest.env_id,
        target_stage=services.environments[target].stage,
        files=files,
        source_version=manifest.superset_version,
    )
    return manifest, planned


@router.post("/{backup_id}/restore/plan")
async def restore_plan(
    backup_id: BackupId, body: RestorePlanRequest, services: ServicesDep, user: CurrentUser
) -> RestorePlan:
    """What restoring the archive into ``target_env_id`` would change (nothing is written)."""
    _, planned = await _plan(services, backup_id, body.target_env_id)
    return planned.plan


async def apply_restore(
    backup_id: str, body: RestoreRequest, applying: Applying
) -> Task | WriteRequestView:
    """Re-plan the restore and apply it by its digest (:meth:`Applying.apply`); a held request
    when the target's stage needs a second person (an admin)."""
    try:
        _, planned = await _plan(applying.services, backup_id, body.target_env_id)
    except ArchiveCorrupt:
        await audit_write(
            applying.session,
            TaskKind.restore,
            "refused",
            "corrupt_archive",
            by=applying.caller,
            env_id=body.target_env_id,
            backup_id=backup_id,
        )
        raise
    plan = planned.plan
    names = [change.name for change in plan.dashboards]
    keys = [dashboard_key(change.uuid) for change in plan.dashboards]

    write = PlannedWrite(
        kind=TaskKind.restore,
        env_id=plan.target_env_id,
        digest=plan.digest,
        cannot_apply=plan.cannot_apply(texts.UNMAPPED_DATABASE),
        body_field="target_env_id",
        objects=names,
        object_keys=keys,
        stale=texts.STALE_PLAN.format(env=plan.target_env_id),
        source=f"backup:{backup_id}",
        workflow=run_restore,
        args=(backup_id, plan.target_env_id),
        approver_role=Role.admin,
        audit={"backup_id": backup_id},
    )
    return await applying.apply(
        write, body.digest, {"backup_id": backup_id, **body.model_dump(mode="json")}
    )


@router.post("/{backup_id}/restore", status_code=status.HTTP_202_ACCEPTED)
async def restore(
    backup_id: BackupId, body: RestoreRequest, applying: AdminApplying
) -> Task | WriteRequestView:
    """Import the archive into ``target_env_id``; a task (kind ``restore``), or a request for a
    second admin where the stage needs two people.

    A corrupt or truncated archive → 422 and nothing imported; ``digest`` is the restore plan's
    the person approved: a target that changed since that plan → 409 with ``current_digest``.
    """
    return await apply_restore(backup_id, body, applying)
