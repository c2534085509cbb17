"""``/api/sql``: format in the database's dialect; execute (reads: anyone, writes: engineers)."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any

import anyio
import anyio.to_thread
from fastapi import APIRouter, Response, status
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.roles import Role
from sstools.auth.tokens import Caller
from sstools.domain.writes import Ask, Granted, Held, WriteRequestView, second_person
from sstools.http.audit_trail import AuditTrail
from sstools.http.auth import CurrentUser, RoleRequired
from sstools.http.deps import EnvironmentDep, ServicesDep, SessionDep, find_environment
from sstools.http.errors import field_error
from sstools.http.services import Services
from sstools.sql import (
    SqlClassification,
    SqlKind,
    SqlSyntaxError,
    classify_for_backend,
    dialect_for,
    format_sql,
)
from sstools.superset.errors import SupersetError, SupersetUnavailable
from sstools.superset.models import SqlResult
from sstools.texts import sql as texts

router = APIRouter(prefix="/api/sql", tags=["sql"])

SqlText = Annotated[str, Field(min_length=1, max_length=100_000)]


class FormatRequest(BaseModel):
    # /docs fills «Try it out» with this (a generated one would name an environment "string").
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"sql": "select region, sum(kwh) from energy_consumption group by 1"}]
        }
    )

    sql: SqlText
    env_id: str | None = Field(default=None, max_length=64)
    database_id: int | None = Field(default=None, ge=1)


class FormatResponse(BaseModel):
    sql: str
    dialect: str | None


class ExecuteRequest(BaseModel):
    # /docs «Try it out» starts from this (a generated one runs "string" on database 1).
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"database_id": 1, "sql": "select count(*) from regions"}]}
    )

    database_id: int = Field(ge=1)
    sql: SqlText
    schema_: str | None = Field(default=None, alias="schema", max_length=256)
    limit: int | None = Field(default=None, ge=1)


class ExecuteResponse(SqlResult):
    classification: SqlClassification


@router.post("/format")
async def format_endpoint(
    body: FormatRequest, services: ServicesDep, user: CurrentUser
) -> FormatResponse:
    dialect = None
    if body.database_id is not None:
        if body.env_id is None:
            raise field_error("env_id", texts.ENV_WITH_DATABASE)
        find_environment(services, body.env_id)  # a 404 naming the known ones
        database = await services.superset.client(body.env_id).get_database(body.database_id)
        dialect = dialect_for(database.backend)
    try:
        return FormatResponse(sql=format_sql(body.sql, dialect), dialect=dialect)
    except SqlSyntaxError as exc:
        raise field_error("sql", str(exc)) from exc


def _failed_write_outcome(exc: BaseException) -> str:
    """How a write that raised is audited.

    ``error``: Superset answered that the SQL failed (an earlier statement may still have run).
    ``unknown``: it timed out, Superset broke or the client left: the write may well have run.
    """
    if isinstance(exc, SupersetError) and not isinstance(exc, SupersetUnavailable):
        return "error"
    return "unknown"


async def run_sql(
    env_id: str,
    body: ExecuteRequest,
    services: Services,
    session: AsyncSession,
    user: Caller,
    granted: Granted | None = None,
) -> ExecuteResponse | WriteRequestView:
    """Run ``body`` in ``env_id``: a read for anyone; a write for engineers, held for a second
    engineer where the environment's stage needs two people."""
    superset = services.superset.client(env_id)
    database = await superset.get_database(body.database_id)
    try:
        # Reading the SQL in several dialects is CPU work: keep it off the event loop.
        classification = await anyio.to_thread.run_sync(
            classify_for_backend, body.sql, database.backend
        )
    except SqlSyntaxError as exc:
        raise field_error("sql", str(exc)) from exc
    writes = classification.kind is SqlKind.write

    async def audited(outcome: str, **detail: Any) -> None:
        await AuditTrail(session, user).record(
            "sql_execute",
            outcome,
            env_id=env_id,
            reason=classification.reason,
            sql=body.sql[:500],
            **detail,
        )

    if writes and not user.role.allows(Role.engineer):
        await audited("refused")
        operation = texts.WRITES_OPERATION.format(reason=classification.reason)
        raise RoleRequired(Role.engineer, user.role, operation)
    approved_by = None
    if writes:
        ask = Ask(
            kind="sql",
            env_id=env_id,
            digest=hashlib.sha256(body.sql.encode()).hexdigest(),
            matches=body.sql,
            objects=[texts.WRITE_OBJECT.format(database=database.name)],
            body=body.model_dump(mode="json", by_alias=True),
            approver_role=Role.engineer,
        )
        cleared = await second_person(session, services, user, ask, granted)
        if isinstance(cleared, Held):
            return cleared.request
        approved_by = cleared.approved_by
    limit = min(body.limit or services.settings.sql_row_limit, services.settings.sql_row_limit)
    try:
        result = await superset.execute_sql(
            body.database_id, body.sql, schema=body.schema_, row_limit=limit
        )
    except BaseException as exc:
        if writes:  # it may have changed data before failing: the audit must say so
            with anyio.CancelScope(shield=True):  # even when the client has gone away
                await audited(
                    _failed_write_outcome(exc),
                    approved_by=approved_by,
                    error=(str(exc) or type(exc).__name__)[:300],
                )
        raise
    if writes:
        await audited("ok", approved_by=approved_by)
    return ExecuteResponse(**result.model_dump(), classification=classification)


@router.post(
    "/execute",
    responses={
        202: {
            "model": WriteRequestView,
            "description": "a write held for a second person (the stage needs two); nothing ran",
        }
    },
)
async def execute_endpoint(
    body: ExecuteRequest,
    env: EnvironmentDep,
    services: ServicesDep,
    session: SessionDep,
    user: CurrentUser,
    response: Response,
) -> ExecuteResponse | WriteRequestView:
    ran = await run_sql(env.id, body, services, session, user)
    if isinstance(ran, WriteRequestView):
        response.status_code = status.HTTP_202_ACCEPTED
    return ran
