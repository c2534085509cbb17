"""The domain API's routers, gathered in one place."""

from fastapi import APIRouter

from sstools.domain.api import (
    dashboards,
    databases,
    datasets,
    environments,
    git,
    permissions,
    sql,
)

router = APIRouter()
for module in (environments, dashboards, datasets, databases, sql, permissions, git):
    router.include_router(module.router)
