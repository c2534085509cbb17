"""``/api/dashboards``: search, details and health of one environment's dashboards."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from sstools.domain.api.search import Search, search_by
from sstools.domain.dashboards import dashboard_overview
from sstools.domain.health import DashboardHealth
from sstools.domain.placement import DashboardPlacements, dashboard_placements
from sstools.http.auth import CurrentUser
from sstools.http.deps import GitDep, ServicesDep, SupersetDep, SupersetId
from sstools.superset.models import DashboardDetail, DashboardSummary, Page

router = APIRouter(prefix="/api/dashboards", tags=["dashboards"])

DashboardId = SupersetId


@router.get("")
async def search_dashboards(
    superset: SupersetDep,
    user: CurrentUser,
    search: Annotated[Search, Depends(search_by("Words in the title"))],
    ids: Annotated[
        str | None,
        Query(
            pattern=r"^[0-9]{1,10}(?:,[0-9]{1,10}){0,49}$",
            description="These dashboards by id, comma-separated (a lookup by title found them)",
        ),
    ] = None,
) -> Page[DashboardSummary]:
    if ids is not None:
        wanted = list(dict.fromkeys(int(one) for one in ids.split(",")))
        found = await asyncio.gather(*(superset.find_dashboard("id", one) for one in wanted))
        summaries = [summary for _, summary in (one for one in found if one is not None)]
        return Page.of(summaries, page=search.page, page_size=search.page_size)
    return await superset.search_dashboards(
        search.words, page=search.page, page_size=search.page_size, scan_limit=search.scan_limit
    )


@router.get("/{dashboard_id}")
async def get_dashboard(
    dashboard_id: DashboardId, superset: SupersetDep, user: CurrentUser
) -> DashboardDetail:
    return await superset.get_dashboard(dashboard_id)


@router.get("/{dashboard_id}/health")
async def get_dashboard_health(
    dashboard_id: DashboardId,
    superset: SupersetDep,
    git: GitDep,
    services: ServicesDep,
    user: CurrentUser,
) -> DashboardHealth:
    return (await dashboard_overview(superset, git, dashboard_id, services.sessions)).health


@router.get("/{dashboard_id}/environments")
async def get_dashboard_environments(
    dashboard_id: DashboardId,
    superset: SupersetDep,
    services: ServicesDep,
    git: GitDep,
    user: CurrentUser,
) -> DashboardPlacements:
    """The dashboard of ``env_id`` in every environment, matched by UUID; one down is one row."""
    environments = list(services.environments.values())
    return await dashboard_placements(services.superset, environments, git, superset, dashboard_id)
