"""Validation runs and generated documents: written by workflow code (sync), read by the API.

Each is keyed by its task: a step replayed after a restart finds its row and writes nothing.
"""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import Engine, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from sstools.storage.models import DashboardDocument, DashboardTaskRow, DashboardValidation

Row = TypeVar("Row", DashboardValidation, DashboardDocument)


def _store_once(engine: Engine, row: DashboardTaskRow) -> None:
    with Session(engine) as session, session.begin():
        kind = type(row)
        if session.scalar(select(kind.id).where(kind.task_id == row.task_id)) is None:
            session.add(row)


def store_validation(engine: Engine, **values: Any) -> None:
    _store_once(engine, DashboardValidation(**values))


def store_document(engine: Engine, **values: Any) -> None:
    _store_once(engine, DashboardDocument(**values))


async def _newest(
    session: AsyncSession, kind: type[Row], env_id: str, dashboard_id: int
) -> Row | None:
    query = (
        select(kind)
        .where(kind.env_id == env_id, kind.dashboard_id == dashboard_id)
        .order_by(kind.created_at.desc(), kind.id.desc())
        .limit(1)
    )
    return await session.scalar(query)


async def latest_validation(
    session: AsyncSession, env_id: str, dashboard_id: int
) -> DashboardValidation | None:
    return await _newest(session, DashboardValidation, env_id, dashboard_id)


async def latest_document(
    session: AsyncSession, env_id: str, dashboard_id: int
) -> DashboardDocument | None:
    return await _newest(session, DashboardDocument, env_id, dashboard_id)


async def recent_validations(session: AsyncSession, limit: int) -> list[DashboardValidation]:
    """The newest validation runs of any dashboard anywhere, newest first (read-only)."""
    query = (
        select(DashboardValidation)
        .order_by(DashboardValidation.created_at.desc(), DashboardValidation.id.desc())
        .limit(limit)
    )
    return list((await session.scalars(query)).all())
