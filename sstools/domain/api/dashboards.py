"""``/api/dashboards``: search, details and health of one environment's dashboards."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field

from sstools.domain.api.search import Search, search_by
from sstools.domain.chart_compare import DataComparison, compare_data
from sstools.domain.chart_data import MAX_ROWS, DashboardData, dashboard_data
from sstools.domain.dashboards import dashboard_overview
from sstools.domain.health import DashboardHealth
from sstools.domain.placement import DashboardPlacements, dashboard_placements
from sstools.http.auth import CurrentUser
from sstools.http.dashboard_filters import MAX_FILTERS, DashboardFilter
from sstools.http.deps import (
    EnvironmentDep,
    GitDep,
    ServicesDep,
    SupersetDep,
    SupersetId,
)
from sstools.http.errors import field_error
from sstools.http.objects import ObjectKind, same_object_in
from sstools.http.services import Services
from sstools.superset import SupersetNotFound
from sstools.superset.models import DashboardDetail, DashboardSummary, Page
from sstools.texts import dashboards as texts
from sstools.texts import http as http_texts

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
    in_env_id: str | None = Field(
        default=None, max_length=64, description="Read the same dashboard (by UUID) there"
    )


@router.post("/{dashboard_id}/data")
async def get_dashboard_data(
    dashboard_id: DashboardId,
    body: DataRequest,
    env: EnvironmentDep,
    services: ServicesDep,
    user: CurrentUser,
) -> DashboardData:
    """The numbers the dashboard's charts show (a read: POST only to carry the filters), with the
    filters applied to each chart whose dataset has their column; the others are named. With
    ``in_env_id``, the same dashboard (by UUID) in that environment."""
    there = _known(services, body.in_env_id, "in_env_id") or env.id
    found = await same_object_in(
        services.superset, env.id, ObjectKind.dashboard, dashboard_id, there
    )
    if found.object_id is None:
        raise SupersetNotFound(there, texts.NOT_IN_ENVIRONMENT.format(env=there))
    return await dashboard_data(
        services.superset.client(there),
        found.object_id,
        body.filters,
        chart_id=body.chart_id,
        row_limit=body.row_limit,
    )


def _known(services: Services, env_id: str | None, field: str) -> str | None:
    """``env_id`` when it is a configured environment (or None); else a 422 naming ``field``."""
    if env_id is not None and env_id not in services.environments:
        known = ", ".join(services.environments)
        message = http_texts.UNKNOWN_ENVIRONMENT.format(env=env_id, known=known)
        raise field_error(field, message)
    return env_id


class CompareRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    other_env_id: str = Field(
        min_length=1, max_length=64, description="The environment to compare with"
    )
    in_env_id: str | None = Field(
        default=None, max_length=64, description="Compare from there (by UUID), not env_id"
    )
    filters: list[DashboardFilter] = Field(
        default=[], max_length=MAX_FILTERS, description="The native filters as they stand"
    )


@router.post("/{dashboard_id}/data/compare")
async def compare_dashboard_data(
    dashboard_id: DashboardId,
    body: CompareRequest,
    env: EnvironmentDep,
    services: ServicesDep,
    git: GitDep,
    user: CurrentUser,
) -> DataComparison:
    """The dashboard's numbers in ``env_id`` and in ``other_env_id`` (the same dashboard, by UUID)
    with the same filters, chart by chart: every number that differs, and whether a deploy
    between them would change the dashboard itself."""
    first = _known(services, body.in_env_id, "in_env_id") or env.id
    if body.other_env_id == first:
        raise field_error("other_env_id", texts.COMPARE_SAME_ENVIRONMENT)
    other = _known(services, body.other_env_id, "other_env_id") or body.other_env_id
    return await compare_data(
        services.superset,
        git,
        list(services.environments.values()),
        env.id,
        dashboard_id,
        other,
        body.filters,
        in_env_id=first,
    )
