"""A dashboard with its health: the one payload the JSON routes and the dashboard page share."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sstools.domain.health import DashboardHealth, dashboard_health, validation_summary
from sstools.git_store import DEFAULT_BRANCH, GitStore
from sstools.superset import SupersetClient
from sstools.superset.models import DashboardDetail


@dataclass(frozen=True)
class DashboardOverview:
    dashboard: DashboardDetail
    health: DashboardHealth


async def dashboard_overview(
    superset: SupersetClient,
    git: GitStore,
    dashboard_id: int,
    sessions: async_sessionmaker[AsyncSession] | None = None,
) -> DashboardOverview:
    """The dashboard as Superset has it and our verdict on its health, git status and (given
    the store) the last validation included."""
    dashboard = await superset.get_dashboard(dashboard_id)  # first: a missing one is a quick 404
    status = await git.dashboard_status(superset, dashboard_id, DEFAULT_BRANCH)
    validation = None
    if sessions is not None:
        async with sessions() as session:
            validation = await validation_summary(session, superset.env.id, dashboard_id)
    health = dashboard_health(superset.env.id, dashboard, status, DEFAULT_BRANCH, validation)
    return DashboardOverview(dashboard, health)
