"""Where a dashboard lives: the same dashboard (matched by UUID) in every configured environment."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import datetime

import structlog
from pydantic import BaseModel

from sstools.domain.git_store import DEFAULT_BRANCH, GitStore, GitStoreError
from sstools.domain.health import git_status_text
from sstools.environments import Environment, Stage
from sstools.superset import SupersetClient, SupersetError, SupersetNotFound, SupersetPool

logger = structlog.get_logger(__name__)

GIT_STATUS_UNKNOWN = "git-статус недоступен"


class Placement(BaseModel):
    """The dashboard in one environment; ``reachable=False`` says nothing about its presence."""

    env_id: str
    name: str
    stage: Stage
    reachable: bool
    present: bool | None  # None: the environment did not answer
    dashboard_id: int | None = None
    title: str | None = None
    changed_on: datetime | None = None
    git_status: str | None = None
    error: str | None = None


class DashboardPlacements(BaseModel):
    uuid: str
    source_env_id: str
    environments: list[Placement]


async def _git_status(git: GitStore, superset: SupersetClient, dashboard_id: int) -> str:
    # The git status exports the dashboard; a failing export must not hide where it lives.
    try:
        status = await git.dashboard_status(superset, dashboard_id, DEFAULT_BRANCH)
    except (SupersetError, GitStoreError) as exc:
        logger.warning("placement_git_status_failed", env_id=superset.env.id, error=str(exc))
        return GIT_STATUS_UNKNOWN
    return git_status_text(status, DEFAULT_BRANCH)


async def _placement(
    env: Environment, superset: SupersetClient, git: GitStore, uuid: str, known: str | None
) -> Placement:
    row = Placement(env_id=env.id, name=env.name, stage=env.stage, reachable=True, present=False)
    try:
        found = await superset.find_dashboard("uuid", uuid)
    except SupersetError as exc:
        return row.model_copy(update={"reachable": False, "present": None, "error": exc.message})
    if found is None:
        return row
    _, dashboard = found
    return row.model_copy(
        update={
            "present": True,
            "dashboard_id": dashboard.id,
            "title": dashboard.title,
            "changed_on": dashboard.changed_on,
            "git_status": known or await _git_status(git, superset, dashboard.id),
        }
    )


async def dashboard_placements(
    pool: SupersetPool,
    environments: list[Environment],
    git: GitStore,
    source: SupersetClient,
    dashboard_id: int,
    known_git_status: Mapping[str, str] | None = None,
) -> DashboardPlacements:
    """The source dashboard across ``environments``, asked concurrently.

    ``known_git_status`` (by environment) spares an export the caller has already made.

    Raises:
        SupersetNotFound: the source environment has no such dashboard.
        SupersetError: the source environment did not answer (without it there is no UUID).
    """
    found = await source.find_dashboard("id", dashboard_id)
    if found is None:
        raise SupersetNotFound(source.env.id, f"dashboard {dashboard_id} not found")
    uuid, _ = found
    rows = await asyncio.gather(
        *(
            _placement(env, pool.client(env.id), git, uuid, (known_git_status or {}).get(env.id))
            for env in environments
        )
    )
    return DashboardPlacements(uuid=uuid, source_env_id=source.env.id, environments=list(rows))
