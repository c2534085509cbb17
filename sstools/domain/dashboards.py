"""A dashboard with its health: the one payload the JSON routes and the dashboard page share."""

from __future__ import annotations

from dataclasses import dataclass

from sstools.domain.git_store import DEFAULT_BRANCH, GitStore
from sstools.domain.health import DashboardHealth, dashboard_health
from sstools.superset import SupersetClient
from sstools.superset.models import DashboardDetail


@dataclass(frozen=True)
class DashboardOverview:
    dashboard: DashboardDetail
    health: DashboardHealth


async def dashboard_overview(
    superset: SupersetClient, git: GitStore, dashboard_id: int
) -> DashboardOverview:
    """The dashboard as Superset has it and our verdict on its health, git status included."""
    dashboard = await superset.get_dashboard(dashboard_id)  # first: a missing one is a quick 404
    status = await git.dashboard_status(superset, dashboard_id, DEFAULT_BRANCH)
    return DashboardOverview(
        dashboard, dashboard_health(superset.env.id, dashboard, status, DEFAULT_BRANCH)
    )
