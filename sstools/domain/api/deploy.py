"""Applying plans: ``POST /api/deploy`` and ``POST /api/migrations`` (the plan itself:
``deploy_plan.py``; rollback: ``rollback.py``).

Each reuses the plan just made while the target is as it saw it (``recent``: the bundle is then
the one the person saw, even if the source moved since) or re-plans, refuses with 409 when the
digest the person approved no longer matches, and otherwise starts a durable task (202) that
imports exactly that plan.
Engineers only; the task start, its end and every refusal are in the audit log.
"""

from __future__ import annotations

from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, status
from pydantic import Field

from sstools.domain.api.approval import required_digest
from sstools.domain.api.deploy_plan import RecentPlansDep
from sstools.domain.deploy import (
    InvalidPlanRequest,
    PlannedDeploy,
    PlanRequest,
    StalePlan,
    make_plan,
)
from sstools.domain.deploy.apply import apply_plan, order_of
from sstools.domain.deploy.recent import RecentPlans, still_current
from sstools.http.auth import EngineerUser
from sstools.http.deps import GitDep, ServicesDep, SessionDep
from sstools.storage import audit
from sstools.tasks import Task, TaskConflict, TaskKind
from sstools.texts import deploy as texts

router = APIRouter(tags=["deploy"])


class ApplyRequest(PlanRequest):
    """The plan request again, with the digest of the plan the person approved."""

    digest: Annotated[str, required_digest(texts.DIGEST_MISSING)] = Field(
        description="The `digest` of the plan (POST /api/deploy/plan)"
    )


def _objects(keys: list[str]) -> list[str]:
    return [f"dashboard:{uuid}" for uuid in keys]


async def _approved_plan(
    request: PlanRequest, digest: str, services: ServicesDep, git: GitDep, recent: RecentPlans
) -> PlannedDeploy:
    recalled = recent.recall(request, digest)
    if recalled is not None:
        target = services.superset.client(recalled.plan.target_env_id)
        if await still_current(recalled, target):
            return recalled
    return await make_plan(request, services.superset, services.environments, git)


async def _apply(
    kind: TaskKind,
    body: ApplyRequest,
    services: ServicesDep,
    git: GitDep,
    recent: RecentPlans,
    session: SessionDep,
    user: EngineerUser,
) -> Task:
    request = PlanRequest.model_validate(body.model_dump(exclude={"digest"}))
    planned = await _approved_plan(request, body.digest, services, git, recent)
    plan = planned.plan
    if not plan.applicable:
        missing = plan.unmapped_database()
        why = texts.NOT_APPLICABLE.format(database=missing) if missing else plan.summary
        raise InvalidPlanRequest("database_mapping", why)
    stage = services.environments[plan.target_env_id].stage
    snapshot = stage.value in services.settings.snapshot_stages
    bundle_dir = services.settings.bundle_dir
    order = await anyio.to_thread.run_sync(
        lambda: order_of(planned, snapshot=snapshot, bundle_dir=bundle_dir)
    )
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
        raise StalePlan(texts.STALE_PLAN.format(env=plan.target_env_id), plan.digest)
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
    body: ApplyRequest,
    services: ServicesDep,
    git: GitDep,
    recent: RecentPlansDep,
    session: SessionDep,
    user: EngineerUser,
) -> Task:
    """Deploy one dashboard (with its charts and datasets) by the plan's digest; a task."""
    if len(body.dashboard_ids) + len(body.dashboard_uuids) != 1:
        raise InvalidPlanRequest("dashboard_ids", texts.ONE_DASHBOARD)
    return await _apply(TaskKind.deploy, body, services, git, recent, session, user)


@router.post("/api/migrations", status_code=status.HTTP_202_ACCEPTED)
async def migrate(
    body: ApplyRequest,
    services: ServicesDep,
    git: GitDep,
    recent: RecentPlansDep,
    session: SessionDep,
    user: EngineerUser,
) -> Task:
    """Migrate a set of dashboards by the plan's digest; a task."""
    return await _apply(TaskKind.migration, body, services, git, recent, session, user)
