"""``POST /api/deploy/plan``: what importing dashboards would change in a target (nothing written).

Applying a plan is ``deploy.py`` (``POST /api/deploy``, ``/api/migrations``); a refusal of the
request (an unknown dashboard or environment, a field that does not fit) is an error of
``sstools.domain.deploy``, answered at the edge (``sstools.app``).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from sstools.domain.deploy import Plan, PlanRequest, make_plan
from sstools.domain.deploy.recent import RecentPlans
from sstools.http.app_state import made_once
from sstools.http.auth import CurrentUser
from sstools.http.deps import GitDep, ServicesDep

router = APIRouter(prefix="/api/deploy", tags=["deploy"])


async def recent_plans(request: Request, services: ServicesDep) -> RecentPlans:
    """This app's plans of the last confirmation TTL (what a card may still apply)."""
    return made_once(
        request, "recent_plans", lambda: RecentPlans(services.settings.confirmation_ttl_s)
    )


RecentPlansDep = Annotated[RecentPlans, Depends(recent_plans)]


@router.post("/plan")
async def plan_deploy(
    body: PlanRequest, services: ServicesDep, git: GitDep, recent: RecentPlansDep, user: CurrentUser
) -> Plan:
    """What would change in ``target_env_id``; any signed-in user may look (nothing is written)."""
    planned = await make_plan(body, services.superset, services.environments, git)
    recent.remember(body, planned)
    return planned.plan
