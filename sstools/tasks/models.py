"""The task record the API shows: what runs, where it writes, how far it got, how it ended."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


def dashboard_key(uuid: str) -> str:
    """``dashboard:<uuid>``, the key a task claims a dashboard by (its id differs by place)."""
    return f"dashboard:{uuid}"


class TaskKind(StrEnum):
    deploy = "deploy"
    migration = "migration"
    rollback = "rollback"
    commit = "commit"
    backup = "backup"
    restore = "restore"
    validation = "validation"
    documentation = "documentation"
    drift_watch = "drift_watch"


class TaskStatus(StrEnum):
    queued = "queued"
    running = "running"
    succeeded = "succeeded"
    failed = "failed"
    cancelled = "cancelled"

    @property
    def finished(self) -> bool:
        return self in FINISHED


FINISHED = frozenset({TaskStatus.succeeded, TaskStatus.failed, TaskStatus.cancelled})
UNFINISHED = frozenset({TaskStatus.queued, TaskStatus.running})


class TaskProgress(BaseModel):
    """Step ``step`` of ``total`` (1-based) is the one running or last done."""

    step: int = Field(ge=0)
    total: int = Field(ge=0)
    name: str


class Task(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    kind: TaskKind
    objects: list[str] = Field(description="Human names of the objects, e.g. dashboard titles")
    object_keys: list[str] = Field(
        default_factory=list,
        description='What it claims, e.g. "dashboard:<uuid>" (empty for tasks recorded before)',
    )
    env_id: str = Field(description="The environment the task writes")
    source: str | None = Field(description='Where it reads from: "ss-dev" or "git:main"')
    started_by: str
    approved_by: str | None = Field(
        default=None, description="The second person, where the stage needs two (else null)"
    )
    status: TaskStatus
    progress: TaskProgress | None
    result: dict[str, Any] | None
    error: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    undone_by: str | None = Field(
        default=None,
        description="A deploy or migration a rollback undid: that rollback's task id (else null)",
    )

    @field_validator("object_keys", mode="before")
    @classmethod
    def _none_is_empty(cls, value: object) -> object:
        return [] if value is None else value
