"""Findings and reports of a dashboard validation, as stored and as the API answers them."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from sstools.storage.models import DashboardValidation
from sstools.texts.validation import last_run_text

Severity = Literal["error", "warning", "info"]
FindingKind = Literal[
    "missing_dataset",
    "query_failed",
    "empty_dashboard",
    "dataset_without_database",
    "no_owners",
    "no_description",
    "unpublished_in_prod",
    "review",
]
ObjectType = Literal["dashboard", "chart", "dataset"]
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "info": 2}


class Finding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: FindingKind
    severity: Severity
    object_type: ObjectType
    object_id: int | None = Field(description="The object's id in the environment, if known")
    object_name: str
    message: str = Field(min_length=1, max_length=2000)
    fix: str = Field(min_length=1, max_length=2000, description="What to do about it")


class Counts(BaseModel):
    error: int = 0
    warning: int = 0
    info: int = 0

    @property
    def problems(self) -> int:
        """Errors and warnings: what «N проблем» counts (notes are not problems)."""
        return self.error + self.warning


def counts_of(findings: list[Finding]) -> Counts:
    counts = Counts()
    for finding in findings:
        setattr(counts, finding.severity, getattr(counts, finding.severity) + 1)
    return counts


class ValidationReport(BaseModel):
    """A validation run as the API answers it: its findings counted, and its one line."""

    model_config = ConfigDict(from_attributes=True)  # a stored run reads as it is

    env_id: str
    dashboard_id: int
    dashboard_uuid: str
    title: str
    task_id: str
    created_at: datetime
    review: str = Field(description="What the model's review did: done, not configured, failed")
    findings: list[Finding]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def counts(self) -> Counts:
        return counts_of(self.findings)

    @computed_field(  # type: ignore[prop-decorator]
        description="One Russian line: when it last ran, how many problems"
    )
    @property
    def summary(self) -> str:
        counts = self.counts
        return last_run_text(self.created_at, counts.problems, counts.error)

    @classmethod
    def of(cls, row: DashboardValidation) -> ValidationReport:
        return cls.model_validate(row)
