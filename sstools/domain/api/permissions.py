"""``/api/permissions/audit``: which Superset roles can reach an object, and how."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Query

from sstools.domain.permissions import (
    AuditedObject,
    PermissionAudit,
    audit_dashboard,
    audit_database,
    audit_dataset,
)
from sstools.http.auth import CurrentUser
from sstools.http.deps import SupersetDep
from sstools.ids import MAX_ID

router = APIRouter(prefix="/api/permissions", tags=["permissions"])


@router.get("/audit")
async def permissions_audit(
    superset: SupersetDep,
    user: CurrentUser,
    object_type: AuditedObject,
    object_id: Annotated[int, Query(ge=1, le=MAX_ID)],
) -> PermissionAudit:
    roles = await superset.roles_with_permissions()
    notes = ["Admin reaches everything in Superset regardless of grants."]
    if object_type is AuditedObject.dataset:
        dataset = await superset.get_dataset(object_id)
        name = dataset.name
        access = [audit_dataset(role, dataset) for role in roles]
    elif object_type is AuditedObject.dashboard:
        dashboard = await superset.get_dashboard(object_id)
        # Each dataset in full: the dashboard's own list may lack a schema or database name.
        datasets = await asyncio.gather(
            *(superset.get_dataset(ref.id) for ref in dashboard.datasets)
        )
        name = dashboard.title
        if not dashboard.published:
            notes.append("The dashboard is a draft: only its owners and admins see it listed.")
        access = [audit_dashboard(role, datasets, dashboard.roles) for role in roles]
    else:
        database = await superset.get_database(object_id)
        name = database.name
        access = [audit_database(role, database.id, database.name) for role in roles]
    return PermissionAudit(
        env_id=superset.env.id,
        object_type=object_type,
        object_id=object_id,
        object_name=name,
        roles=access,
        notes=notes,
    )
