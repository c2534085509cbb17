"""The domain API's routers, gathered in one place."""

from fastapi import APIRouter

from sstools.domain.api import (
    backups,
    dashboards,
    databases,
    datasets,
    deploy,
    deploy_plan,
    drift,
    environments,
    git,
    objects,
    permissions,
    rollback,
    sql,
    timeline,
    validation,
    write_requests,
)

router = APIRouter()
_MODULES = (
    environments,
    dashboards,
    datasets,
    objects,
    databases,
    sql,
    permissions,
    git,
    deploy_plan,
    deploy,
)
for module in (*_MODULES, rollback, backups, write_requests, validation, drift, timeline):
    router.include_router(module.router)
