"""``/api/deploy/{task_id}/rollback``: plan and apply the undoing of a deploy or migration.

The plan is read from the snapshot commit the deploy's task pinned (never from whatever its
branch points at now); applying it takes that plan's digest and refuses with 409 when the
target changed since. Who may roll back: the person who ran the deploy, or an admin — another
engineer is refused (403) naming the owner. The plan, the card and the audit name whose deploy
it is.
"""

from __future__ import annotations

from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, HTTPException, Path, status
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sstools.auth.roles import Role
from sstools.domain.api.approval import Applying, EngineerApplying, required_digest
from sstools.domain.deploy.apply import rollback
from sstools.domain.deploy.rollback import (
    PlannedRollback,
    RollbackPlan,
    SnapshotRecord,
    plan_rollback,
    rollback_order,
)
from sstools.domain.writes import PlannedWrite, WriteRequestView, audit_write
from sstools.git_store import GitStore
from sstools.http.auth import CurrentUser
from sstools.http.deps import GitDep, ServicesDep
from sstools.http.errors import field_error
from sstools.http.services import Services
from sstools.ids import ENV_ID_PATTERN
from sstools.tasks import Task, TaskKind, dashboard_key
from sstools.texts import STAGES
from sstools.texts import deploy as texts
from sstools.texts import tasks as task_texts

router = APIRouter(tags=["deploy"])

TaskIdPath = Annotated[
    str, Path(pattern=r"^[0-9a-f]{8,32}$", description="The deploy's task id, or its first 8+")
]


class RollbackPlanRequest(BaseModel):
    # /docs «Try it out» starts from this (a generated one names the environment "string").
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"env_id": "prod"}]})

    env_id: str = Field(max_length=64, pattern=ENV_ID_PATTERN, description="The task's target")


class RollbackRequest(RollbackPlanRequest):
    digest: Annotated[str, required_digest(texts.ROLLBACK_DIGEST_MISSING)] = Field(
        max_length=128,
        description="The `digest` of the rollback plan (POST /api/deploy/{task_id}/rollback/plan)",
    )


def _conflict(message: str) -> HTTPException:
    return HTTPException(status.HTTP_409_CONFLICT, message)


async def _undoable(services: Services, task_id: str, env_id: str) -> tuple[Task, SnapshotRecord]:
    """The finished deploy or migration ``task_id`` into ``env_id``, and its snapshot."""
    done = await services.tasks.get(task_id)
    task_id = done.id  # a reference may be its first digits
    if done.kind not in (TaskKind.deploy, TaskKind.migration):
        kind = task_texts.KINDS.get(done.kind.value, done.kind.value)
        raise _conflict(texts.ROLLBACK_KIND.format(task=task_id, kind=kind))
    if env_id != done.env_id:
        message = texts.ROLLBACK_ENV.format(task=task_id, env=done.env_id, asked=env_id)
        raise field_error("env_id", message)
    if not done.status.finished:
        raise _conflict(texts.ROLLBACK_UNFINISHED.format(task=task_id))
    try:
        snapshot = SnapshotRecord.model_validate((done.result or {}).get("snapshot"))
    except ValidationError as exc:
        stage = STAGES[services.environments[done.env_id].stage.value]
        raise _conflict(texts.ROLLBACK_NO_SNAPSHOT.format(task=task_id, stage=stage)) from exc
    return done, snapshot


async def _plan(
    services: Services, git: GitStore, done: Task, snapshot: SnapshotRecord
) -> PlannedRollback:
    return await plan_rollback(
        services.superset.client(done.env_id),
        git,
        deploy_task_id=done.id,
        deployed_by=done.started_by,
        snapshot=snapshot,
        target_stage=services.environments[done.env_id].stage,
    )


@router.post("/api/deploy/{task_id}/rollback/plan")
async def plan_roll_back(
    task_id: TaskIdPath,
    body: RollbackPlanRequest,
    services: ServicesDep,
    git: GitDep,
    user: CurrentUser,
) -> RollbackPlan:
    """What rolling the deploy back would change; any signed-in user may look (nothing written)."""
    done, snapshot = await _undoable(services, task_id, body.env_id)
    return (await _plan(services, git, done, snapshot)).plan


async def apply_rollback(
    task_id: str, body: RollbackRequest, applying: Applying, git: GitStore
) -> Task | WriteRequestView:
    """Re-plan the rollback and apply it by its digest (:meth:`Applying.apply`): the deploy's
    owner or an admin; a held request when the stage needs a second person."""
    services, user = applying.services, applying.caller
    done, snapshot = await _undoable(services, task_id, body.env_id)
    if user.username != done.started_by and not user.role.allows(Role.admin):
        await audit_write(
            applying.session,
            TaskKind.rollback,
            "refused",
            "not_owner",
            by=user,
            env_id=done.env_id,
            deploy_task_id=done.id,
            deployed_by=done.started_by,
        )
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            texts.ROLLBACK_NOT_OWNER.format(task=done.id, owner=done.started_by),
        )
    planned = await _plan(services, git, done, snapshot)
    plan = planned.plan
    order = await anyio.to_thread.run_sync(rollback_order, planned, services.settings.bundle_dir)
    restored = [one.uuid for one in order.restore]
    object_keys = [dashboard_key(uuid) for uuid in [*restored, *order.delete_dashboards]]

    write = PlannedWrite(
        kind=TaskKind.rollback,
        env_id=done.env_id,
        digest=plan.digest,
        cannot_apply=plan.cannot_apply(texts.ROLLBACK_UNMAPPED),
        body_field="env_id",
        objects=done.objects,
        object_keys=object_keys,
        stale=texts.STALE_ROLLBACK.format(env=done.env_id),
        source=f"git:{snapshot.branch}@{(snapshot.commit or '')[:12]}".removesuffix("@"),
        workflow=rollback,
        args=(order.model_dump(),),
        audit={
            "deploy_task_id": done.id,
            "deployed_by": done.started_by,
            "snapshot_commit": plan.snapshot_commit,
        },
    )
    return await applying.apply(
        write, body.digest, {"task_id": done.id, **body.model_dump(mode="json")}
    )


@router.post("/api/deploy/{task_id}/rollback", status_code=status.HTTP_202_ACCEPTED)
async def roll_back(
    task_id: TaskIdPath, body: RollbackRequest, git: GitDep, applying: EngineerApplying
) -> Task | WriteRequestView:
    """Apply the rollback plan by its digest: restore the pinned snapshot, delete what the
    deploy created; a task (kind ``rollback``), or a request for a second person."""
    return await apply_rollback(task_id, body, applying, git)
