"""``/api/environments``: the configured Superset environments and whether each answers."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from pydantic import BaseModel

from sstools.environments import Stage
from sstools.http.auth import CurrentUser
from sstools.http.deps import ServicesDep

router = APIRouter(prefix="/api/environments", tags=["environments"])


class EnvironmentView(BaseModel):
    id: str
    name: str
    stage: Stage
    url: str
    reachable: bool


@router.get("")
async def list_environments(services: ServicesDep, user: CurrentUser) -> list[EnvironmentView]:
    envs = list(services.environments.values())
    reachable = await asyncio.gather(*(services.superset.client(env.id).health() for env in envs))
    return [
        EnvironmentView(id=env.id, name=env.name, stage=env.stage, url=env.url, reachable=ok)
        for env, ok in zip(envs, reachable, strict=True)
    ]
