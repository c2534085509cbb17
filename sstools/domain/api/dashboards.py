"""``/api/dashboards``: search, details and health of one environment's dashboards."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field

from sstools.domain.api.search import Search, search_by
from sstools.domain.chart_data import MAX_ROWS, DashboardData, dashboard_data
from sstools.domain.dashboards import dashboard_overview
from sstools.domain.health import DashboardHealth
from sstools.domain.placement import DashboardPlacements, dashboard_placements
from sstools.http.auth import CurrentUser
from sstools.http.dashboard_filters import MAX_FILTERS, DashboardFilter
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


class DataRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    filters: list[DashboardFilter] = Field(
        default=[],
        max_length=MAX_FILTERS,
        description="The dashboard's native filters as they stand",
    )
    chart_id: int | None = Field(
        default=None, ge=1, le=2**31 - 1, description="Only this chart; omit for all of them"
    )
    row_limit: int = Field(default=20, ge=1, le=MAX_ROWS, description="Rows per chart at most")


@router.post("/{dashboard_id}/data")
async def get_dashboard_data(
    dashboard_id: DashboardId, body: DataRequest, superset: SupersetDep, user: CurrentUser
) -> DashboardData:
    """The numbers the dashboard's charts show (a read: POST only to carry the filters), with the
    filters applied to each chart whose dataset has their column; the others are named."""
    await superset.get_json(f"/api/v1/dashboard/{dashboard_id}")  # 404 in words if there is none
    return await dashboard_data(
        superset, dashboard_id, body.filters, chart_id=body.chart_id, row_limit=body.row_limit
    )
