"""Dataset review verdicts, kept in sstools' own database (Superset has no such notion)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.storage.models import DatasetReview, utcnow


class ReviewStatus(StrEnum):
    unreviewed = "unreviewed"
    approved = "approved"
    changes_requested = "changes_requested"


class Review(BaseModel):
    status: ReviewStatus
    reviewed_by: str | None = None
    updated_at: datetime | None = None


async def get_review(session: AsyncSession, env_id: str, dataset_id: int) -> Review:
    row = await session.get(DatasetReview, (env_id, dataset_id))
    if row is None:
        return Review(status=ReviewStatus.unreviewed)
    return Review(
        status=ReviewStatus(row.status), reviewed_by=row.reviewed_by, updated_at=row.updated_at
    )


async def set_review(
    session: AsyncSession, env_id: str, dataset_id: int, status: ReviewStatus, username: str
) -> Review:
    row = await session.get(DatasetReview, (env_id, dataset_id))
    if row is None:
        row = DatasetReview(env_id=env_id, dataset_id=dataset_id)
        session.add(row)
    row.status = status.value
    row.reviewed_by = username
    row.updated_at = utcnow()
    await session.commit()
    return Review(status=status, reviewed_by=username, updated_at=row.updated_at)
