"""A dataset with our review verdict: the one payload the JSON route and the dataset page share."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from sstools.domain.reviews import Review, get_review
from sstools.superset import SupersetClient
from sstools.superset.models import DatasetDetail


class DatasetWithReview(DatasetDetail):
    review: Review


async def dataset_with_review(
    superset: SupersetClient, session: AsyncSession, dataset_id: int
) -> DatasetWithReview:
    """The dataset as Superset has it, its dependents, and the review kept in our database."""
    dataset = await superset.get_dataset(dataset_id)
    review = await get_review(session, superset.env.id, dataset_id)
    return DatasetWithReview(**dataset.model_dump(by_alias=True), review=review)
