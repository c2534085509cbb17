"""Issue 33 §3: beside a dashboard's page, the drift report is about that dashboard only."""

from __future__ import annotations

from datetime import UTC, datetime

from sstools.domain.drift.models import DashboardDrift, DriftReport, DriftState, EnvironmentDrift
from sstools.environments import Stage


def _one(uuid: str, title: str, state: DriftState, dashboard_id: int | None) -> DashboardDrift:
    return DashboardDrift(
        uuid=uuid, title=title, state=state, dashboard_id=dashboard_id, source_dashboard_id=None,
        changed_on=None, source_changed_on=None, git_changed_on=None, differs_from_source=None,
        differs_from_git=None, in_git=True,
    )  # fmt: skip


def _env(env_id: str, stage: Stage, *dashboards: DashboardDrift) -> EnvironmentDrift:
    return EnvironmentDrift(
        env_id=env_id, name=env_id, stage=stage, source_env_id=None, reachable=True,
        counts={}, dashboards=list(dashboards),
    )  # fmt: skip


REPORT = DriftReport(
    checked_at=datetime(2026, 12, 1, tzinfo=UTC),
    seconds=1.0,
    environments=[
        _env("ss-dev", Stage.dev, _one("u-10", "Отчёт", DriftState.in_sync, 10),
             _one("u-6", "KPIs", DriftState.edited_here, 6)),
        _env("prod", Stage.prod, _one("u-10", "Отчёт", DriftState.edited_here, 4),
             _one("u-6", "KPIs", DriftState.behind_source, 2)),
    ],
)  # fmt: skip


def test_one_dashboard_by_its_id_in_one_place_is_kept_in_every_environment() -> None:
    about = REPORT.about("ss-dev", 10)
    kept = {(env.env_id, one.dashboard_id, one.state) for env in about.environments
            for one in env.dashboards}  # fmt: skip
    assert kept == {("ss-dev", 10, DriftState.in_sync), ("prod", 4, DriftState.edited_here)}
    counts = {env.env_id: env.counts for env in about.environments}
    assert counts == {"ss-dev": {DriftState.in_sync: 1}, "prod": {DriftState.edited_here: 1}}


def test_an_id_the_environment_lacks_keeps_nothing() -> None:
    assert all(not env.dashboards for env in REPORT.about("ss-dev", 4).environments)
