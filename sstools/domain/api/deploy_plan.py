"""``/api/deploy``: the plan of a deploy — what importing dashboards would change in a target."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from fastapi.exceptions import RequestValidationError

from sstools.domain.deploy import (
    DeployError,
    InvalidPlanRequest,
    Plan,
    PlanRequest,
    make_plan,
)
from sstools.http.auth import CurrentUser
from sstools.http.deps import GitDep, ServicesDep

router = APIRouter(prefix="/api/deploy", tags=["deploy"])


def stale_plan(message: str, current_digest: str) -> HTTPException:
    """409 for an apply whose approved digest no longer matches: the target moved since."""
    return HTTPException(409, {"message": message, "current_digest": current_digest})


def refusal(exc: DeployError) -> Exception:
    """The HTTP form of a refusal: a 422 list naming the field like every other 422, or a 404."""
    if isinstance(exc, InvalidPlanRequest):
        loc = ("body", *exc.field.split("."))
        return RequestValidationError([{"type": "value_error", "loc": loc, "msg": exc.message}])
    return HTTPException(exc.status, str(exc))


@router.post("/plan")
async def plan_deploy(
    body: PlanRequest, services: ServicesDep, git: GitDep, user: CurrentUser
) -> Plan:
    """What would change in ``target_env_id``; any signed-in user may look (nothing is written)."""
    try:
        planned = await make_plan(body, services.superset, services.environments, git)
    except DeployError as exc:
        raise refusal(exc) from exc
    return planned.plan
