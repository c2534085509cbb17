"""``/api/datasets``: search, details with dependencies, overview, our review verdict, create."""

from __future__ import annotations

import hashlib
from typing import Annotated

from fastapi import APIRouter, Depends, Response, status
from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.roles import Role
from sstools.auth.tokens import Caller
from sstools.domain.api.search import Search, search_by
from sstools.domain.datasets import (
    CreatedDataset,
    DatasetInvalid,
    DatasetOverview,
    DatasetWithReview,
    create_dataset,
    dataset_overview,
    dataset_with_review,
)
from sstools.domain.reviews import Review, ReviewStatus, set_review
from sstools.domain.writes import Ask, Granted, Held, WriteRequestView, second_person
from sstools.http.audit_trail import AuditTrail
from sstools.http.auth import CurrentUser, EngineerUser
from sstools.http.deps import ServicesDep, SessionDep, SupersetDep, SupersetId, find_environment
from sstools.http.services import Services
from sstools.ids import ENV_ID_PATTERN
from sstools.storage.write_requests import dataset_identity
from sstools.superset.models import DatasetSummary, Page
from sstools.texts import datasets as texts

router = APIRouter(prefix="/api/datasets", tags=["datasets"])

DatasetId = SupersetId


class ReviewRequest(BaseModel):
    status: ReviewStatus


Name = Field(default=None, min_length=1, max_length=250)


class CreateRequest(BaseModel):
    """Physical: ``schema`` and ``table``. Virtual: ``sql`` and ``name`` (``schema`` optional)."""

    env_id: str = Field(max_length=64, pattern=ENV_ID_PATTERN)
    database_id: int = Field(ge=1, le=2**31 - 1)
    schema_: str | None = Field(default=None, alias="schema", min_length=1, max_length=250)
    table: str | None = Name
    sql: str | None = Field(default=None, min_length=1, max_length=100_000)
    name: str | None = Name


def _shape(body: CreateRequest) -> None:
    """Exactly one of the two kinds, with what that kind needs, each gap naming its field."""
    if body.sql is None and body.table is None:
        raise DatasetInvalid(texts.TABLE_OR_SQL, field="table")
    if body.sql is not None and body.table is not None:
        raise DatasetInvalid(texts.NOT_BOTH, field="table")
    if body.sql is not None and body.name is None:
        raise DatasetInvalid(texts.NAME_MISSING, field="name")
    if body.table is not None and body.schema_ is None:
        raise DatasetInvalid(texts.SCHEMA_MISSING, field="schema")


@router.get("")
async def search_datasets(
    superset: SupersetDep,
    user: CurrentUser,
    search: Annotated[Search, Depends(search_by("Words in the table name"))],
) -> Page[DatasetSummary]:
    return await superset.search_datasets(
        search.words, page=search.page, page_size=search.page_size, scan_limit=search.scan_limit
    )


@router.get("/{dataset_id}")
async def get_dataset(
    dataset_id: DatasetId, superset: SupersetDep, session: SessionDep, user: CurrentUser
) -> DatasetWithReview:
    return await dataset_with_review(superset, session, dataset_id)


@router.get("/{dataset_id}/overview")
async def get_overview(
    dataset_id: DatasetId, superset: SupersetDep, session: SessionDep, user: CurrentUser
) -> DatasetOverview:
    return await dataset_overview(superset, session, dataset_id)


async def create_dataset_as(
    body: CreateRequest,
    services: Services,
    session: AsyncSession,
    user: Caller,
    granted: Granted | None = None,
) -> CreatedDataset | WriteRequestView:
    """Create the dataset ``body`` asks for, held for a second engineer where the environment's
    stage needs two people (a new dataset in prod is a write into prod)."""
    _shape(body)
    env = find_environment(services, body.env_id)
    identity = dataset_identity(
        database_id=body.database_id,
        schema=body.schema_,
        table=body.table,
        sql=body.sql,
        name=body.name,
    )
    ask = Ask(
        kind="dataset",
        env_id=env.id,
        digest=hashlib.sha256(identity.encode()).hexdigest(),
        matches=identity,
        objects=[body.name or f"{body.schema_}.{body.table}"],
        body=body.model_dump(mode="json", by_alias=True),
        approver_role=Role.engineer,
    )
    cleared = await second_person(session, services, user, ask, granted)
    if isinstance(cleared, Held):
        return cleared.request
    superset = services.superset.client(env.id)
    created = await create_dataset(
        superset,
        database_id=body.database_id,
        schema=body.schema_,
        table=body.table,
        sql=body.sql,
        name=body.name,
    )
    await AuditTrail(session, user).record(
        "dataset_create",
        "ok",
        env_id=env.id,
        dataset_id=created.id,
        kind=created.kind,
        name=created.name,
        approved_by=cleared.approved_by,
    )
    return created


@router.post(
    "",
    status_code=201,
    responses={
        202: {
            "model": WriteRequestView,
            "description": "held for a second person (the stage needs two); nothing created",
        },
        409: {"description": "A dataset of that name exists"},
        503: {},
    },
)
async def post_dataset(
    body: CreateRequest,
    services: ServicesDep,
    session: SessionDep,
    user: EngineerUser,
    response: Response,
) -> CreatedDataset | WriteRequestView:
    made = await create_dataset_as(body, services, session, user)
    if isinstance(made, WriteRequestView):
        response.status_code = status.HTTP_202_ACCEPTED
    return made


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
    await AuditTrail(session, user).record(
        "dataset_review",
        "ok",
        env_id=superset.env.id,
        dataset_id=dataset_id,
        status=body.status.value,
    )
    return review
