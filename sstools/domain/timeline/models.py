"""A dashboard's timeline as the API answers it: its points, newest first."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from sstools.superset.models import UtcDatetime

PointKind = Literal["git", "snapshot", "backup", "live"]


class RestoreSource(BaseModel):
    """What bringing the dashboard back to a point plans from (never a write path of its own).

    ``git_commit``: a deploy plan's ``source.git_ref`` (a commit on main, or a deploy's pinned
    snapshot commit); ``backup_id``: ``POST /api/backups/{backup_id}/restore/plan``.
    """

    git_commit: str | None = Field(
        default=None, description="Commit id to plan from: the deploy plan's source.git_ref"
    )
    backup_id: str | None = Field(
        default=None, description="Backup to plan the restore of (POST /api/backups/{id}/restore)"
    )


class TimelinePoint(BaseModel):
    kind: PointKind
    when: UtcDatetime
    who: str | None = Field(description="The commit's author, the task's or backup's starter")
    label: str = Field(description="The point in words")
    env_id: str | None = Field(
        description="Where it was taken (snapshot, backup) or lives (live); none for git"
    )
    task_id: str | None = Field(default=None, description="The deploy that took the snapshot")
    restore: RestoreSource | None = Field(description="What to plan from; none for a live point")


class Timeline(BaseModel):
    env_id: str
    dashboard_id: int
    uuid: str
    title: str
    points: list[TimelinePoint]
