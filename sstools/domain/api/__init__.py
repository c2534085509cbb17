"""The domain API's routers, gathered in one place."""

from fastapi import APIRouter

from sstools.domain.api import dashboards, databases, datasets, environments, permissions, sql

router = APIRouter()
for module in (environments, dashboards, datasets, databases, sql, permissions):
    router.include_router(module.router)
