"""``/api/objects``: the object a page names, as Superset has it, here or in another environment."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter

from sstools.http.auth import CurrentUser
from sstools.http.deps import EnvIdQuery, EnvironmentDep, ServicesDep, SupersetId
from sstools.http.errors import field_error
from sstools.http.objects import (
    DashboardColumns,
    ObjectInEnvironment,
    ObjectKind,
    dashboard_columns,
    find_object,
    same_object_in,
)
from sstools.texts import http as http_texts

router = APIRouter(prefix="/api/objects", tags=["objects"])


@router.get("/dashboard/{dashboard_id}/columns")
async def get_dashboard_columns(
    dashboard_id: SupersetId, env: EnvironmentDep, services: ServicesDep, user: CurrentUser
) -> DashboardColumns:
    """The columns of the dashboard's datasets in ``env_id`` — what its filters may name (the
    agent checks a page's filters against them); 404 if the environment has no such dashboard."""
    return await dashboard_columns(services.superset, env.id, dashboard_id)


@router.get("/{object_type}/{object_id}")
async def get_object(
    object_type: ObjectKind,
    object_id: SupersetId,
    env: EnvironmentDep,
    services: ServicesDep,
    user: CurrentUser,
    in_env_id: Annotated[str | None, EnvIdQuery] = None,
) -> ObjectInEnvironment:
    """The object ``object_id`` of ``env_id`` (404 if it has none); with ``in_env_id``, the same
    object (by UUID) in that environment, ``present: false`` where it has none."""
    if in_env_id is None:
        return await find_object(services.superset, env.id, object_type, object_id)
    if in_env_id not in services.environments:
        known = ", ".join(services.environments)
        message = http_texts.UNKNOWN_ENVIRONMENT.format(env=in_env_id, known=known)
        raise field_error("in_env_id", message, where="query")
    return await same_object_in(services.superset, env.id, object_type, object_id, in_env_id)
