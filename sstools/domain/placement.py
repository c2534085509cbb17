"""Where a dashboard lives: the same dashboard (matched by UUID) in every configured environment."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import datetime

import structlog
from pydantic import BaseModel

from sstools.domain.deploy import DeployError, DeploySource, PlanRequest, make_plan
from sstools.domain.health import git_status_text
from sstools.environments import Environment, EnvironmentRegistry, Stage
from sstools.git_store import DEFAULT_BRANCH, GitStore, GitStoreError
from sstools.superset import SupersetClient, SupersetError, SupersetNotFound, SupersetPool
from sstools.texts import dashboards as texts

logger = structlog.get_logger(__name__)


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
    # Whether a deploy from the source environment would change it (from a plan); None for the
    # source itself, where it is absent or the plan could not be made.
    differs: bool | None = None
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
        return texts.GIT_STATUS_UNKNOWN
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
        raise SupersetNotFound(source.env.id, texts.NOT_FOUND.format(dashboard=dashboard_id))
    uuid, _ = found
    rows = await asyncio.gather(
        *(
            _placement(env, pool.client(env.id), git, uuid, (known_git_status or {}).get(env.id))
            for env in environments
        )
    )
    registry = EnvironmentRegistry(environments)
    differs = await asyncio.gather(
        *(
            _differs(pool, registry, git, source.env.id, row.env_id, uuid)
            for row in rows
            if row.present and row.env_id != source.env.id
        )
    )
    compared = iter(differs)
    rows = [
        row.model_copy(update={"differs": next(compared)})
        if row.present and row.env_id != source.env.id
        else row
        for row in rows
    ]
    return DashboardPlacements(uuid=uuid, source_env_id=source.env.id, environments=rows)


async def _differs(
    pool: SupersetPool,
    registry: EnvironmentRegistry,
    git: GitStore,
    source_env_id: str,
    target_env_id: str,
    uuid: str,
) -> bool | None:
    """Whether the plan of deploying the dashboard there would change anything."""
    request = PlanRequest(
        dashboard_uuids=[uuid],
        source=DeploySource(env_id=source_env_id),
        target_env_id=target_env_id,
    )
    try:
        planned = await make_plan(request, pool, registry, git)
    except (SupersetError, DeployError, GitStoreError) as exc:
        logger.warning("placement_plan_failed", env_id=target_env_id, error=str(exc))
        return None
    return planned.plan.dashboards_changed > 0
