"""What a dashboard's document is written from, and the stored document the API returns."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, computed_field

from sstools.domain.validation.facts import DashboardFacts
from sstools.superset.models import UtcDatetime


class Deployment(BaseModel):
    """The dashboard (by UUID) in one configured environment."""

    env_id: str
    name: str
    stage: str
    present: bool | None  # None: the environment did not answer
    dashboard_id: int | None = None
    changed_on: UtcDatetime | None = None
    published: bool | None = None


class GitFacts(BaseModel):
    status: str  # in Russian, as the health summary says it
    last_commit: str | None = None  # «abc1234 · message · author»


class DocumentSource(BaseModel):
    facts: DashboardFacts
    deployments: list[Deployment]
    git: GitFacts


class DashboardDocumentation(BaseModel):
    env_id: str
    dashboard_id: int
    dashboard_uuid: str
    task_id: str
    author: Literal["model", "template"] = Field(
        description="Who wrote it: the configured model, or the template (no model, or its "
        "answer lacked a section)"
    )
    markdown: str
    git_path: str = Field(description="`docs/<uuid>.md` in the git repository")
    git_commit: str | None = Field(
        description="The commit on main that holds this text; None: stored only, not committed "
        "(committing is an engineer's explicit `commit=true`)"
    )
    created_at: datetime

    @computed_field(description="The text is on main (see git_commit)")  # type: ignore[prop-decorator]
    @property
    def committed(self) -> bool:
        return self.git_commit is not None
