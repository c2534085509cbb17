"""``/api/drift``: each environment against git ``main`` and its upstream stage.

Reading (``GET``) never asks Superset once a report exists; a check now is ``POST
/api/drift/check`` (a cookie-authenticated one needs the CSRF header, as every POST): bounded by
:mod:`sstools.domain.drift.on_request`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from sstools.domain.drift import DriftReport
from sstools.domain.drift.models import DriftProgress
from sstools.domain.drift.on_request import DriftOnRequestDep
from sstools.http.auth import CurrentUser
from sstools.http.deps import EnvIdQuery, ServicesDep, SessionDep
from sstools.http.errors import field_error
from sstools.http.services import Services
from sstools.texts import http as texts

router = APIRouter(prefix="/api/drift", tags=["drift"])

EnvFilter = Annotated[str | None, EnvIdQuery]
DashboardFilter = Annotated[
    int | None,
    Query(ge=1, le=2**31 - 1, description="Only this dashboard (its id in `dashboard_env_id`)"),
]
DashboardEnv = Annotated[
    str | None, Query(max_length=64, description="Where `dashboard_id` is that dashboard's id")
]


def _known(services: Services, env_id: str | None) -> None:
    if env_id is not None and env_id not in services.environments:
        known = ", ".join(services.environments)
        raise field_error(
            "env_id", texts.UNKNOWN_ENVIRONMENT.format(env=env_id, known=known), where="query"
        )


@router.get("")
async def get_drift(
    services: ServicesDep,
    session: SessionDep,
    on_request: DriftOnRequestDep,
    user: CurrentUser,
    env_id: EnvFilter = None,
    dashboard_id: DashboardFilter = None,
    dashboard_env_id: DashboardEnv = None,
) -> DriftReport:
    """The latest drift report (the scheduled watch's, or one checked on request) with the time
    it was made; with none yet, the first check (shared by everyone asking meanwhile). Per
    environment: the counts by state and every dashboard with its state and its three
    ``changed_on``. With ``dashboard_id`` and ``dashboard_env_id``: that one dashboard only, in
    every environment (the agent beside a dashboard's page)."""
    _known(services, env_id)
    report = await on_request.latest_or_first(services, session)
    if dashboard_id is not None:
        where = dashboard_env_id or env_id
        if where is None:
            raise field_error("dashboard_env_id", texts.DASHBOARD_ENV_NEEDED, where="query")
        _known(services, where)
        report = report.about(where, dashboard_id)
    return report.only(env_id)


@router.get("/progress")
async def drift_progress(on_request: DriftOnRequestDep, user: CurrentUser) -> DriftProgress:
    """The check under way in this worker (what ``/drift`` shows while it runs): dashboards
    looked at and in all; ``running: false`` once it ended (then read ``GET /api/drift``)."""
    return on_request.progress()


@router.post(
    "/check",
    responses={429: {"description": "the caller started as many checks as the window allows"}},
)
async def check_drift_now(
    services: ServicesDep,
    session: SessionDep,
    on_request: DriftOnRequestDep,
    user: CurrentUser,
    env_id: EnvFilter = None,
) -> DriftReport:
    """Check the whole fleet now (``env_id`` only filters the answer): a report younger than
    ``SSTOOLS_DRIFT_FRESH_S`` answers at once, a check under way is shared, and each person may
    start ``SSTOOLS_DRIFT_CHECK_LIMIT_PER_USER`` checks (then 429 with ``Retry-After``)."""
    _known(services, env_id)
    return (await on_request.check_now(services, session, user.username)).only(env_id)
