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

from sstools.domain.api.approval import Applying, EngineerApplying, required_digest
from sstools.domain.api.deploy_plan import RecentPlansDep
from sstools.domain.deploy import (
    InvalidPlanRequest,
    PlannedDeploy,
    PlanRequest,
    make_plan,
)
from sstools.domain.deploy.apply import apply_plan, order_of
from sstools.domain.deploy.recent import RecentPlans, still_current
from sstools.domain.writes import PlannedWrite, WriteRequestView
from sstools.git_store import GitStore
from sstools.http.deps import GitDep
from sstools.http.services import Services
from sstools.tasks import Task, TaskKind, dashboard_key
from sstools.texts import deploy as texts

router = APIRouter(tags=["deploy"])


class ApplyRequest(PlanRequest):
    """The plan request again, with the digest of the plan the person approved."""

    digest: Annotated[str, required_digest(texts.DIGEST_MISSING)] = Field(
        description="The `digest` of the plan (POST /api/deploy/plan)"
    )


async def _approved_plan(
    request: PlanRequest, digest: str, services: Services, git: GitStore, recent: RecentPlans
) -> PlannedDeploy:
    recalled = recent.recall(request, digest)
    if recalled is not None:
        target = services.superset.client(recalled.plan.target_env_id)
        if await still_current(recalled, target):
            return recalled
    return await make_plan(request, services.superset, services.environments, git)


async def apply_deploy(
    kind: TaskKind, body: ApplyRequest, applying: Applying, git: GitStore, recent: RecentPlans
) -> Task | WriteRequestView:
    """Re-plan ``body`` and apply it by its digest (:meth:`Applying.apply`); a held request when
    the target's stage needs a second person."""
    services = applying.services
    request = PlanRequest.model_validate(body.model_dump(exclude={"digest"}))
    planned = await _approved_plan(request, body.digest, services, git, recent)
    plan = planned.plan
    stage = services.environments[plan.target_env_id].stage
    snapshot = stage.value in services.settings.snapshot_stages
    bundle_dir = services.settings.bundle_dir
    order = await anyio.to_thread.run_sync(
        lambda: order_of(planned, snapshot=snapshot, bundle_dir=bundle_dir)
    )
    titles = [one.title for one in order.dashboards]
    source = f"git:{body.source.git_ref}" if body.source.git_ref else body.source.env_id
    write = PlannedWrite(
        kind=kind,
        env_id=plan.target_env_id,
        digest=plan.digest,
        cannot_apply=plan.cannot_apply(texts.NOT_APPLICABLE),
        body_field="database_mapping",
        objects=titles,
        object_keys=[dashboard_key(one.uuid) for one in order.dashboards],
        stale=texts.STALE_PLAN.format(env=plan.target_env_id),
        source=source,
        workflow=apply_plan,
        args=(order.model_dump(),),
    )
    return await applying.apply(write, body.digest, body.model_dump(mode="json"))


@router.post("/api/deploy", status_code=status.HTTP_202_ACCEPTED)
async def deploy(
    body: ApplyRequest, git: GitDep, recent: RecentPlansDep, applying: EngineerApplying
) -> Task | WriteRequestView:
    """Deploy one dashboard (with its charts and datasets) by the plan's digest; a task."""
    if len(body.dashboard_ids) + len(body.dashboard_uuids) != 1:
        raise InvalidPlanRequest("dashboard_ids", texts.ONE_DASHBOARD)
    return await apply_deploy(TaskKind.deploy, body, applying, git, recent)


@router.post("/api/migrations", status_code=status.HTTP_202_ACCEPTED)
async def migrate(
    body: ApplyRequest, git: GitDep, recent: RecentPlansDep, applying: EngineerApplying
) -> Task | WriteRequestView:
    """Migrate a set of dashboards by the plan's digest; a task."""
    return await apply_deploy(TaskKind.migration, body, applying, git, recent)
