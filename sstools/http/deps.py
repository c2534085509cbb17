"""FastAPI dependencies shared by the routers, as named ``Annotated`` aliases."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, HTTPException, Path, Query, Request
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.config import Settings
from sstools.environments import Environment
from sstools.git_store import GitStore
from sstools.http.services import Services
from sstools.ids import ENV_ID_PATTERN, MAX_ID
from sstools.superset import SupersetClient
from sstools.texts import http as texts


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


def get_settings(services: ServicesDep) -> Settings:
    return services.settings


SettingsDep = Annotated[Settings, Depends(get_settings)]


async def get_session(services: ServicesDep) -> AsyncIterator[AsyncSession]:
    async with services.sessions() as session:
        yield session


SessionDep = Annotated[AsyncSession, Depends(get_session)]


EnvIdQuery = Query(
    description="Environment id, e.g. `ss-dev`: lowercase letters, digits, `-`, `_`",
    max_length=64,
    pattern=ENV_ID_PATTERN,
)


def find_environment(services: Services, env_id: str) -> Environment:
    """The configured environment, or a 404 naming the known ones."""
    if env_id not in services.environments:
        known = ", ".join(services.environments)
        raise HTTPException(404, texts.UNKNOWN_ENVIRONMENT.format(env=env_id, known=known))
    return services.environments[env_id]


def get_environment(services: ServicesDep, env_id: Annotated[str, EnvIdQuery]) -> Environment:
    return find_environment(services, env_id)


def get_optional_environment(
    services: ServicesDep, env_id: Annotated[str | None, EnvIdQuery] = None
) -> Environment | None:
    return None if env_id is None else find_environment(services, env_id)


EnvironmentDep = Annotated[Environment, Depends(get_environment)]
OptionalEnvironmentDep = Annotated[Environment | None, Depends(get_optional_environment)]


def get_superset(services: ServicesDep, env: EnvironmentDep) -> SupersetClient:
    return services.superset.client(env.id)


SupersetDep = Annotated[SupersetClient, Depends(get_superset)]


def get_git(services: ServicesDep) -> GitStore:
    return services.git


GitDep = Annotated[GitStore, Depends(get_git)]


# A dashboard, dataset or database id in a path: bounded, so a huge one is a 422, not an outage.
SupersetId = Annotated[int, Path(ge=1, le=MAX_ID)]

# A page of a search, and its size (Superset's largest page).
PageNumber = Annotated[int, Query(ge=0, le=10_000)]
PageSize = Annotated[int, Query(ge=1, le=100)]
