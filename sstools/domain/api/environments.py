"""``/api/environments``: the configured Superset environments, whether each answers, and the
Superset release each runs (a fleet may be in the middle of an upgrade)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from pydantic import BaseModel

from sstools.environments import Stage
from sstools.http.auth import CurrentUser
from sstools.http.deps import ServicesDep
from sstools.superset import SupersetClient, versions

router = APIRouter(prefix="/api/environments", tags=["environments"])


class EnvironmentView(BaseModel):
    id: str
    name: str
    stage: Stage
    url: str
    reachable: bool
    superset_version: str | None  # None: it does not answer, or does not say


async def _answers(client: SupersetClient) -> tuple[bool, str | None]:
    healthy, release = await asyncio.gather(client.health(), client.release())
    return healthy, versions.shown(release) if release else None


@router.get("")
async def list_environments(services: ServicesDep, user: CurrentUser) -> list[EnvironmentView]:
    envs = list(services.environments.values())
    answers = await asyncio.gather(*(_answers(services.superset.client(env.id)) for env in envs))
    return [
        EnvironmentView(
            **env.model_dump(include={"id", "name", "stage", "url"}),
            reachable=healthy,
            superset_version=release,
        )
        for env, (healthy, release) in zip(envs, answers, strict=True)
    ]
