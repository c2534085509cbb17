"""What a drift check reports: per environment, per dashboard, its state and the three times."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from sstools.environments import Stage


class DriftState(StrEnum):
    in_sync = "in_sync"
    edited_here = "edited_here"
    behind_source = "behind_source"
    missing = "missing"

    @property
    def drifted(self) -> bool:
        return self is not DriftState.in_sync


class DashboardDrift(BaseModel):
    uuid: str
    title: str
    state: DriftState
    dashboard_id: int | None = Field(description="Its id in this environment (None: missing)")
    source_dashboard_id: int | None = Field(description="Its id in the upstream environment")
    changed_on: datetime | None = Field(description="`changed_on` in this environment")
    source_changed_on: datetime | None = Field(description="`changed_on` in the upstream one")
    git_changed_on: datetime | None = Field(
        description="Time of the last commit on `main` that touched it"
    )
    differs_from_source: bool | None = Field(
        description="A deploy from the upstream environment would change it (None: not known)"
    )
    differs_from_git: bool | None = Field(
        description="Its export differs from `main` (None: `main` does not track it, or unknown)"
    )
    in_git: bool = Field(description="`main` tracks it")


class EnvironmentDrift(BaseModel):
    env_id: str
    name: str
    stage: Stage
    source_env_id: str | None = Field(description="Its upstream stage's environment")
    reachable: bool
    error: str | None = None
    checked_at: datetime | None = Field(
        default=None, description="When this environment was checked (a refresh after a write)"
    )
    counts: dict[DriftState, int]
    dashboards: list[DashboardDrift]

    @property
    def drifted(self) -> list[DashboardDrift]:
        return [one for one in self.dashboards if one.state.drifted]


class DriftReport(BaseModel):
    checked_at: datetime
    seconds: float = Field(description="How long the check took")
    task_id: str | None = Field(
        default=None, description="The drift watch task that recorded it (None: computed now)"
    )
    environments: list[EnvironmentDrift]

    def only(self, env_id: str | None) -> DriftReport:
        if env_id is None:
            return self
        kept = [one for one in self.environments if one.env_id == env_id]
        return self.model_copy(update={"environments": kept})

    def about(self, env_id: str, dashboard_id: int) -> DriftReport:
        """Only the dashboard that is ``dashboard_id`` in ``env_id``, in every environment (its
        UUID is the same everywhere; its id is not). Nothing when that environment lacks it."""
        uuids = {
            one.uuid
            for env in self.environments
            if env.env_id == env_id
            for one in env.dashboards
            if one.dashboard_id == dashboard_id
        }
        kept = []
        for env in self.environments:
            dashboards = [one for one in env.dashboards if one.uuid in uuids]
            counts: dict[DriftState, int] = {}
            for one in dashboards:
                counts[one.state] = counts.get(one.state, 0) + 1
            kept.append(env.model_copy(update={"dashboards": dashboards, "counts": counts}))
        return self.model_copy(update={"environments": kept})


class DriftProgress(BaseModel):
    """The check under way in this worker, as ``/drift`` shows it while it runs."""

    running: bool
    done: int = Field(description="Dashboards looked at so far")
    total: int = Field(description="Dashboards to look at (0: not listed yet)")
    env_ids: list[str] | None = Field(
        description="The environments it checks (None: the whole fleet)"
    )
