"""The domain API's routers, gathered in one place."""

from fastapi import APIRouter

from sstools.domain.api import (
    backups,
    dashboards,
    databases,
    datasets,
    deploy,
    deploy_plan,
    environments,
    git,
    objects,
    permissions,
    rollback,
    sql,
    validation,
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
for module in (*_MODULES, rollback, backups, validation):
    router.include_router(module.router)
