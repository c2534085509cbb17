"""A dashboard's health at a glance: freshness, owners, published, charts whose data resolves."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from sstools.superset.models import DashboardDetail, Owner

# Until the write side versions dashboards and validates them, these are the honest answers.
GIT_NOT_VERSIONED = "не версионирован"
VALIDATION_NEVER_RUN = "не проверялся"


class ChartHealth(BaseModel):
    id: int
    name: str
    dataset_id: int | None
    dataset_resolves: bool


class DashboardHealth(BaseModel):
    env_id: str
    dashboard_id: int
    title: str
    published: bool
    changed_on: datetime | None
    owners: list[Owner]
    charts: list[ChartHealth]
    broken_charts: int
    git_status: str
    last_validation: str
    status: str  # "ok" | "degraded"
    problems: list[str]


def dashboard_health(env_id: str, dashboard: DashboardDetail) -> DashboardHealth:
    dataset_ids = {dataset.id for dataset in dashboard.datasets}
    charts = [
        ChartHealth(
            id=chart.id,
            name=chart.name,
            dataset_id=chart.dataset_id,
            dataset_resolves=chart.dataset_id is not None and chart.dataset_id in dataset_ids,
        )
        for chart in dashboard.charts
    ]
    problems = [
        f"график «{chart.name}» ссылается на несуществующий датасет"
        for chart in charts
        if not chart.dataset_resolves
    ]
    if not dashboard.owners:
        problems.append("у дашборда нет владельцев")
    if not dashboard.charts:
        problems.append("на дашборде нет графиков")
    return DashboardHealth(
        env_id=env_id,
        dashboard_id=dashboard.id,
        title=dashboard.title,
        published=dashboard.published,
        changed_on=dashboard.changed_on,
        owners=dashboard.owners,
        charts=charts,
        broken_charts=sum(not chart.dataset_resolves for chart in charts),
        git_status=GIT_NOT_VERSIONED,
        last_validation=VALIDATION_NEVER_RUN,
        status="degraded" if problems else "ok",
        problems=problems,
    )
