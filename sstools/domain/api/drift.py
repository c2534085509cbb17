"""``/api/drift``: each environment against git ``main`` and its upstream stage."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from sstools.domain.drift import DriftReport
from sstools.domain.drift.watch import drift_report
from sstools.http.auth import CurrentUser
from sstools.http.deps import EnvIdQuery, ServicesDep, SessionDep
from sstools.http.errors import field_error
from sstools.texts import http as texts

router = APIRouter(prefix="/api/drift", tags=["drift"])


@router.get("")
async def get_drift(
    services: ServicesDep,
    session: SessionDep,
    user: CurrentUser,
    env_id: Annotated[str | None, EnvIdQuery] = None,
    fresh: Annotated[
        bool, Query(description="Check now instead of returning the latest report")
    ] = False,
) -> DriftReport:
    """The latest drift report (the scheduled watch's, or one made on an earlier request) with
    the time it was made; ``fresh=true``, or none made yet, checks now. Per environment: the
    counts by state and every dashboard with its state and its three ``changed_on``."""
    if env_id is not None and env_id not in services.environments:
        known = ", ".join(services.environments)
        raise field_error(
            "env_id", texts.UNKNOWN_ENVIRONMENT.format(env=env_id, known=known), where="query"
        )
    report = await drift_report(services, session, now=fresh)
    return report.only(env_id)
