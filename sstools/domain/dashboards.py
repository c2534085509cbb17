"""A dashboard with its health: the one payload the JSON routes and the dashboard page share."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sstools.domain.health import (
    DashboardHealth,
    ValidationSummary,
    dashboard_health,
    validation_summary,
)
from sstools.domain.placement import (
    DashboardPlacements,
    SourceDashboard,
    dashboard_placements,
    fetch_source,
    other_placements,
    remember_uuid,
    remembered_uuid,
)
from sstools.environments import Environment
from sstools.git_store import DEFAULT_BRANCH, GitStore
from sstools.superset import SupersetClient, SupersetError, SupersetPool
from sstools.superset.models import DashboardDetail

logger = structlog.get_logger(__name__)


@dataclass(frozen=True)
class DashboardOverview:
    dashboard: DashboardDetail
    health: DashboardHealth


async def dashboard_overview(
    superset: SupersetClient,
    git: GitStore,
    dashboard_id: int,
    sessions: async_sessionmaker[AsyncSession] | None = None,
    known: SourceDashboard | None = None,
) -> DashboardOverview:
    """The dashboard as Superset has it and our verdict on its health, git status and (given
    the store) the last validation included. ``known``: the dashboard as already fetched."""
    # First: a missing one is a quick 404. Its fingerprint keys the export the git status makes.
    source = known or await fetch_source(superset, dashboard_id)

    async def validation() -> ValidationSummary | None:
        if sessions is None:
            return None
        async with sessions() as session:
            return await validation_summary(session, superset.env.id, dashboard_id)

    status, last = await asyncio.gather(
        git.dashboard_status(superset, dashboard_id, DEFAULT_BRANCH, source.fresh), validation()
    )
    health = dashboard_health(superset.env.id, source.detail, status, DEFAULT_BRANCH, last)
    return DashboardOverview(source.detail, health)


@dataclass(frozen=True)
class DashboardView:
    """What the dashboard page shows; ``placements`` None when they could not be had."""

    overview: DashboardOverview
    placements: DashboardPlacements | None


async def dashboard_view(
    pool: SupersetPool,
    environments: list[Environment],
    git: GitStore,
    env_id: str,
    dashboard_id: int,
    sessions: async_sessionmaker[AsyncSession] | None = None,
) -> DashboardView:
    """The dashboard, its health and where it lives, with one fetch of it and one export (or
    none: the export is kept while the dashboard and its charts have not moved).

    Raises:
        SupersetNotFound: ``env_id`` has no such dashboard.
        SupersetError: ``env_id`` did not answer.
    """
    superset = pool.client(env_id)
    # The UUID an earlier view saw lets the other environments be asked beside the dashboard
    # itself; a wrong guess (the id now names another dashboard) is thrown away.
    guess = remembered_uuid(git, env_id, dashboard_id)
    early = (
        asyncio.ensure_future(other_placements(pool, environments, git, env_id, guess))
        if guess is not None
        else None
    )
    try:
        source = await fetch_source(superset, dashboard_id)
    except BaseException:
        if early is not None:
            early.cancel()
        raise
    remember_uuid(git, env_id, dashboard_id, source.uuid)
    others = None
    if early is not None:
        if guess == source.uuid:
            others = await early
        else:
            early.cancel()

    async def placements() -> DashboardPlacements | None:
        try:
            return await dashboard_placements(
                pool, environments, git, superset, dashboard_id, source, others
            )
        except SupersetError as exc:
            logger.warning("dashboard_placements_failed", env_id=env_id, error=str(exc))
            return None

    overview, where = await asyncio.gather(
        dashboard_overview(superset, git, dashboard_id, sessions, source), placements()
    )
    return DashboardView(overview, where)
