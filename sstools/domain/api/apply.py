"""Applying plans: ``/api/deploy``, ``/api/migrations`` and ``/api/deploy/{task_id}/rollback``.

Each re-plans, refuses with 409 when the digest the person approved no longer matches (the target
or the source moved since), and otherwise starts a durable task (202) that imports exactly that
plan. Engineers only; the task start, its end and every refusal are in the audit log.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, status
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, field_validator

from sstools.auth.deps import EngineerUser
from sstools.deps import GitDep, ServicesDep, SessionDep
from sstools.domain.api.deploy import refusal, stale_plan
from sstools.domain.deploy import DeployError, PlanRequest, make_plan, texts
from sstools.domain.deploy.apply import RollbackOrder, apply_plan, order_of, rollback
from sstools.environments import ENV_ID_PATTERN
from sstools.storage import audit
from sstools.tasks import Task, TaskConflict, TaskKind, TaskNotFound

router = APIRouter(tags=["deploy"])


class ApplyRequest(PlanRequest):
    """The plan request again, with the digest of the plan the person approved."""

    digest: str = Field(description="The `digest` of the plan (POST /api/deploy/plan)")

    @field_validator("digest", mode="before")
    @classmethod
    def _digest(cls, value: Any) -> Any:
        if not isinstance(value, str) or not value:
            raise ValueError(texts.DIGEST_MISSING)
        return value


class RollbackRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    env_id: str = Field(max_length=64, pattern=ENV_ID_PATTERN, description="The task's target")


def _invalid(field: str, message: str) -> RequestValidationError:
    return RequestValidationError([{"type": "value_error", "loc": ("body", field), "msg": message}])


def _objects(keys: list[str]) -> list[str]:
    return [f"dashboard:{uuid}" for uuid in keys]


async def _apply(
    kind: TaskKind,
    body: ApplyRequest,
    services: ServicesDep,
    git: GitDep,
    session: SessionDep,
    user: EngineerUser,
) -> Task:
    request = PlanRequest.model_validate(body.model_dump(exclude={"digest"}))
    try:
        planned = await make_plan(request, services.superset, services.environments, git)
    except DeployError as exc:
        raise refusal(exc) from exc
    plan = planned.plan
    if not plan.applicable:
        missing = next(db.source_name for db in plan.databases if db.target_uuid is None)
        raise _invalid("database_mapping", texts.NOT_APPLICABLE.format(database=missing))
    stage = services.environments[plan.target_env_id].stage
    order = order_of(planned, snapshot=stage.value in services.settings.snapshot_stages)
    object_keys = _objects([one.uuid for one in order.dashboards])
    # A task writing there makes any plan stale: name it rather than ask for a new plan.
    running = await services.tasks.running_on(plan.target_env_id, object_keys)
    if running is not None:
        raise TaskConflict(running)
    if plan.digest != body.digest:
        await audit.record(
            session,
            action=f"{kind.value}_refused",
            outcome="stale_plan",
            username=user.username,
            env_id=plan.target_env_id,
            approved_digest=body.digest,
            current_digest=plan.digest,
        )
        raise stale_plan(texts.STALE_PLAN.format(env=plan.target_env_id), plan.digest)
    source = f"git:{body.source.git_ref}" if body.source.git_ref else body.source.env_id
    return await services.tasks.start(
        kind,
        env_id=plan.target_env_id,
        source=source,
        objects=[one.title for one in order.dashboards],
        object_keys=object_keys,
        started_by=user.username,
        workflow=apply_plan,
        args=(order.model_dump(),),
    )


@router.post("/api/deploy", status_code=status.HTTP_202_ACCEPTED)
async def deploy(
    body: ApplyRequest, services: ServicesDep, git: GitDep, session: SessionDep, user: EngineerUser
) -> Task:
    """Deploy one dashboard (with its charts and datasets) by the plan's digest; a task."""
    if len(body.dashboard_ids) + len(body.dashboard_uuids) != 1:
        raise _invalid("dashboard_ids", texts.ONE_DASHBOARD)
    return await _apply(TaskKind.deploy, body, services, git, session, user)


@router.post("/api/migrations", status_code=status.HTTP_202_ACCEPTED)
async def migrate(
    body: ApplyRequest, services: ServicesDep, git: GitDep, session: SessionDep, user: EngineerUser
) -> Task:
    """Migrate a set of dashboards by the plan's digest; a task."""
    return await _apply(TaskKind.migration, body, services, git, session, user)


@router.post("/api/deploy/{task_id}/rollback", status_code=status.HTTP_202_ACCEPTED)
async def roll_back(
    task_id: Annotated[str, Path(pattern=r"^[0-9a-f]{32}$")],
    body: RollbackRequest,
    services: ServicesDep,
    user: EngineerUser,
) -> Task:
    """Restore the snapshot a deploy or migration took of its target; a task."""
    try:
        done = await services.tasks.get(task_id)
    except TaskNotFound as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from exc
    if done.kind not in (TaskKind.deploy, TaskKind.migration):
        raise HTTPException(
            status.HTTP_409_CONFLICT, texts.ROLLBACK_KIND.format(task=task_id, kind=done.kind)
        )
    if body.env_id != done.env_id:
        raise _invalid(
            "env_id", texts.ROLLBACK_ENV.format(task=task_id, env=done.env_id, asked=body.env_id)
        )
    if not done.status.finished:
        raise HTTPException(
            status.HTTP_409_CONFLICT, texts.ROLLBACK_UNFINISHED.format(task=task_id)
        )
    snapshot = (done.result or {}).get("snapshot")
    if not isinstance(snapshot, dict):
        stage = services.environments[done.env_id].stage.value
        raise HTTPException(
            status.HTTP_409_CONFLICT, texts.ROLLBACK_NO_SNAPSHOT.format(task=task_id, stage=stage)
        )
    order = RollbackOrder(
        target_env_id=done.env_id,
        deploy_task_id=task_id,
        restore=list(snapshot.get("dashboards", [])),
        delete_dashboards=list(snapshot.get("created_dashboards", [])),
        delete_charts=list(snapshot.get("created_charts", [])),
    )
    return await services.tasks.start(
        TaskKind.rollback,
        env_id=done.env_id,
        source=f"git:{snapshot.get('branch')}",
        objects=done.objects,
        object_keys=_objects([*order.restore, *order.delete_dashboards]),
        started_by=user.username,
        workflow=rollback,
        args=(order.model_dump(),),
    )
