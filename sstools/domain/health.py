"""A dashboard's health at a glance: freshness, owners, published, charts whose data resolves,
git status and the last validation, with one Russian sentence saying all of it."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.domain.validation.models import ValidationReport
from sstools.git_store import DashboardStatus
from sstools.russian import human_datetime
from sstools.storage.validation import latest_validation
from sstools.superset.models import DashboardDetail, Owner
from sstools.texts import dashboards as texts
from sstools.texts.validation import NEVER_RUN, last_run_text


def git_status_text(status: DashboardStatus, branch: str) -> str:
    """The dashboard's git status as the page and the agent say it."""
    if status.status == "clean":
        return texts.GIT_CLEAN.format(branch=branch)
    if status.status == "modified":
        return texts.GIT_MODIFIED.format(branch=branch, files=len(status.changed_files))
    return texts.GIT_NOT_VERSIONED


class ChartHealth(BaseModel):
    id: int
    name: str
    dataset_id: int | None
    dataset_name: str | None = None  # None: the dataset does not resolve on this dashboard
    dataset_resolves: bool


class ValidationSummary(BaseModel):
    """The newest finished validation of the dashboard in this environment."""

    at: datetime
    task_id: str
    problems: int = Field(description="Errors and warnings")
    errors: int
    warnings: int
    notes: int = Field(description="Findings of severity info (not counted as problems)")

    @property
    def text(self) -> str:
        """«последняя проверка: 30 ноября 2026, 05:44, 1 проблема (ошибок: 1)»."""
        return last_run_text(self.at, self.problems, self.errors)

    @property
    def brief(self) -> str:
        """The same without its label, for a page that labels it already."""
        return self.text.split(": ", 1)[1]


async def validation_summary(
    session: AsyncSession, env_id: str, dashboard_id: int
) -> ValidationSummary | None:
    row = await latest_validation(session, env_id, dashboard_id)
    if row is None:
        return None
    counts = ValidationReport.of(row).counts
    return ValidationSummary(
        at=row.created_at,
        task_id=row.task_id,
        problems=counts.problems,
        errors=counts.error,
        warnings=counts.warning,
        notes=counts.info,
    )


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
    validation: ValidationSummary | None = None
    status: str  # "ok" | "degraded"
    problems: list[str]
    summary: str = Field(description="All of the above in one Russian sentence, for people")


def dashboard_health(
    env_id: str,
    dashboard: DashboardDetail,
    git: DashboardStatus,
    branch: str,
    validation: ValidationSummary | None = None,
) -> DashboardHealth:
    dataset_names = {dataset.id: dataset.name for dataset in dashboard.datasets}
    charts = [
        ChartHealth(
            id=chart.id,
            name=chart.name,
            dataset_id=chart.dataset_id,
            dataset_name=dataset_names.get(chart.dataset_id) if chart.dataset_id else None,
            dataset_resolves=chart.dataset_id is not None and chart.dataset_id in dataset_names,
        )
        for chart in dashboard.charts
    ]
    problems = [
        texts.CHART_DATASET_MISSING.format(chart=chart.name)
        for chart in charts
        if not chart.dataset_resolves
    ]
    if not dashboard.owners:
        problems.append(texts.NO_OWNERS)
    if not dashboard.charts:
        problems.append(texts.NO_CHARTS)
    git_text = git_status_text(git, branch)
    last = validation.text if validation else NEVER_RUN
    verdict = (
        texts.VERDICT_DEGRADED.format(problems="; ".join(problems))
        if problems
        else texts.VERDICT_OK
    )
    summary = texts.SUMMARY.format(
        title=dashboard.title,
        env=env_id,
        verdict=verdict,
        git=git_text,
        changed=human_datetime(dashboard.changed_on),
        validation=last[:1].upper() + last[1:],
    )
    return DashboardHealth(
        env_id=env_id,
        dashboard_id=dashboard.id,
        title=dashboard.title,
        published=dashboard.published,
        changed_on=dashboard.changed_on,
        owners=dashboard.owners,
        charts=charts,
        broken_charts=sum(not chart.dataset_resolves for chart in charts),
        git_status=git_text,
        git=git,
        last_validation=last,
        validation=validation,
        status="degraded" if problems else "ok",
        problems=problems,
        summary=summary,
    )
