"""``/api/datasets``: search, details with dependencies, and our review verdict."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel

from sstools.auth.deps import CurrentUser, EngineerUser
from sstools.deps import SessionDep, SettingsDep, SupersetDep, SupersetId
from sstools.domain.datasets import DatasetWithReview, dataset_with_review
from sstools.domain.reviews import Review, ReviewStatus, set_review
from sstools.storage import audit
from sstools.superset.models import DatasetSummary, Page

router = APIRouter(prefix="/api/datasets", tags=["datasets"])

DatasetId = SupersetId


class ReviewRequest(BaseModel):
    status: ReviewStatus


@router.get("")
async def search_datasets(
    superset: SupersetDep,
    settings: SettingsDep,
    user: CurrentUser,
    q: Annotated[str | None, Query(max_length=200, description="Words in the table name")] = None,
    page: Annotated[int, Query(ge=0, le=10_000)] = 0,
    page_size: Annotated[int, Query(ge=1, le=100)] = 20,
) -> Page[DatasetSummary]:
    return await superset.search_datasets(
        q, page=page, page_size=page_size, scan_limit=settings.search_scan_limit
    )


@router.get("/{dataset_id}")
async def get_dataset(
    dataset_id: DatasetId, superset: SupersetDep, session: SessionDep, user: CurrentUser
) -> DatasetWithReview:
    return await dataset_with_review(superset, session, dataset_id)


@router.put("/{dataset_id}/review")
async def put_review(
    dataset_id: DatasetId,
    body: ReviewRequest,
    superset: SupersetDep,
    session: SessionDep,
    user: EngineerUser,
) -> Review:
    await superset.get_dataset(dataset_id)  # 404 for a dataset that does not exist
    review = await set_review(session, superset.env.id, dataset_id, body.status, user.username)
    await audit.record(
        session,
        action="dataset_review",
        outcome="ok",
        username=user.username,
        env_id=superset.env.id,
        dataset_id=dataset_id,
        status=body.status.value,
    )
    return review
