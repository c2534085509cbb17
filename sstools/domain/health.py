"""A dashboard's health at a glance: freshness, owners, published, charts whose data resolves."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from sstools.domain.git_store import DashboardStatus
from sstools.superset.models import DashboardDetail, Owner

GIT_NOT_VERSIONED = "не версионирован"
GIT_CLEAN = "совпадает с веткой {branch}"
GIT_MODIFIED = "изменён относительно ветки {branch} (файлов: {files})"
# Until the write side validates dashboards, this is the honest answer.
VALIDATION_NEVER_RUN = "не проверялся"


def git_status_text(status: DashboardStatus, branch: str) -> str:
    """The dashboard's git status as the page and the agent say it."""
    if status.status == "clean":
        return GIT_CLEAN.format(branch=branch)
    if status.status == "modified":
        return GIT_MODIFIED.format(branch=branch, files=len(status.changed_files))
    return GIT_NOT_VERSIONED


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
    git: DashboardStatus
    last_validation: str
    status: str  # "ok" | "degraded"
    problems: list[str]


def dashboard_health(
    env_id: str, dashboard: DashboardDetail, git: DashboardStatus, branch: str
) -> DashboardHealth:
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
        git_status=git_status_text(git, branch),
        git=git,
        last_validation=VALIDATION_NEVER_RUN,
        status="degraded" if problems else "ok",
        problems=problems,
    )
