"""``/api/databases``: databases of an environment, drilled down to schemas, tables and columns."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from sstools.http.auth import CurrentUser
from sstools.http.deps import SupersetDep, SupersetId
from sstools.superset.models import Column, Database

router = APIRouter(prefix="/api/databases", tags=["databases"])

DatabaseId = SupersetId
# Longer than any database's identifiers (PostgreSQL 63 bytes, MySQL 64 characters); printable.
Name = Annotated[str, Path(min_length=1, max_length=128, pattern=r"^[^\x00-\x1f\x7f]+$")]


@router.get("")
async def list_databases(superset: SupersetDep, user: CurrentUser) -> list[Database]:
    return await superset.list_databases()


@router.get("/{database_id}/schemas")
async def list_schemas(
    database_id: DatabaseId, superset: SupersetDep, user: CurrentUser
) -> list[str]:
    return await superset.list_schemas(database_id)


@router.get("/{database_id}/schemas/{schema}/tables")
async def list_tables(
    database_id: DatabaseId, schema: Name, superset: SupersetDep, user: CurrentUser
) -> list[str]:
    return await superset.list_tables(database_id, schema)


@router.get("/{database_id}/schemas/{schema}/tables/{table}/columns")
async def list_columns(
    database_id: DatabaseId, schema: Name, table: Name, superset: SupersetDep, user: CurrentUser
) -> list[Column]:
    return await superset.table_columns(database_id, schema, table)
