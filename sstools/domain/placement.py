"""Where a dashboard lives: the same dashboard (matched by UUID) in every configured environment.

A view asks each environment once or twice (its dashboard by UUID, then that dashboard's charts)
and exports nothing it has exported before: exports are kept by a fingerprint of what they are
made of (:func:`fingerprint`), and so is the verdict of the plan behind «Отличается от источника».
The source's fingerprint covers the dashboard's ``changed_on``, each chart's and its datasets'
content; another environment's covers the dashboard's and its charts' ``changed_on`` (a dataset
edited there alone, or a native filter's dataset, is not seen until the dashboard or a chart
moves).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from weakref import WeakKeyDictionary

import anyio.to_thread
import structlog
from pydantic import BaseModel

from sstools.domain.deploy import (
    DeployError,
    DeploySource,
    Inventories,
    VersionSkew,
    plan_sources,
    read_sources,
)
from sstools.domain.health import git_status_text
from sstools.environments import Environment, EnvironmentRegistry, Stage
from sstools.git_store import DEFAULT_BRANCH, BoundedCache, GitStore, GitStoreError
from sstools.superset import SupersetClient, SupersetError, SupersetNotFound, SupersetPool
from sstools.superset.models import DashboardDetail, DashboardSummary
from sstools.texts import dashboards as texts
from sstools.texts import deploy as deploy_texts

logger = structlog.get_logger(__name__)

VERDICT_CACHE_SIZE = 256


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


def fingerprint(*parts: Any) -> str:
    """A digest of what an export is made of: it moves when any part does."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class SourceDashboard:
    """The page's dashboard as its environment has it, with the key its export is kept by."""

    detail: DashboardDetail
    uuid: str
    fingerprint: str

    @property
    def fresh(self) -> tuple[str, str]:
        return self.uuid, self.fingerprint


async def fetch_source(superset: SupersetClient, dashboard_id: int) -> SourceDashboard:
    """The dashboard, its charts and datasets: three requests at once, nothing exported.

    Raises:
        SupersetNotFound: no such dashboard.
        SupersetError: the environment did not answer.
    """
    body, charts, datasets = await asyncio.gather(
        superset.get_json(f"/api/v1/dashboard/{dashboard_id}"),
        superset.get_json(f"/api/v1/dashboard/{dashboard_id}/charts"),
        superset.get_json(f"/api/v1/dashboard/{dashboard_id}/datasets"),
    )
    raw, chart_rows = body["result"], charts.get("result", [])
    dataset_rows = datasets.get("result", [])
    detail = DashboardDetail.from_api(
        raw, charts=chart_rows, datasets=dataset_rows, superset_url=superset.env.url
    )
    printed = fingerprint(
        raw.get("changed_on"),
        sorted((row.get("id"), row.get("changed_on")) for row in chart_rows),
        sorted(dataset_rows, key=lambda row: str(row.get("id"))),
    )
    uuid = raw.get("uuid")
    if uuid is None:  # a Superset whose detail has no UUID yet: its list has
        found = await superset.find_dashboard("id", dashboard_id)
        if found is None:
            raise SupersetNotFound(superset.env.id, texts.NOT_FOUND.format(dashboard=dashboard_id))
        uuid = found[0]
    return SourceDashboard(detail, str(uuid), printed)


async def _git_status(
    git: GitStore, superset: SupersetClient, dashboard_id: int, fresh: tuple[str, str] | None
) -> str:
    # The git status exports the dashboard; a failing export must not hide where it lives.
    try:
        status = await git.dashboard_status(superset, dashboard_id, DEFAULT_BRANCH, fresh)
    except (SupersetError, GitStoreError) as exc:
        logger.warning("placement_git_status_failed", env_id=superset.env.id, error=str(exc))
        return texts.GIT_STATUS_UNKNOWN
    return git_status_text(status, DEFAULT_BRANCH)


async def _charts_printed(superset: SupersetClient, dashboard_id: int | None) -> list[Any] | None:
    """The dashboard's charts with their ``changed_on`` (one list query); None if it failed."""
    if dashboard_id is None:
        return None
    try:
        rows = await superset.list_all(
            "chart",
            columns=["id", "uuid", "changed_on_utc", "datasource_id"],
            filters=[{"col": "dashboards", "opr": "rel_m_m", "value": dashboard_id}],
        )
    except SupersetError as exc:
        logger.warning("placement_charts_failed", env_id=superset.env.id, error=str(exc))
        return None
    return sorted(
        (row.get("id"), row.get("uuid"), row.get("changed_on_utc"), row.get("datasource_id"))
        for row in rows
    )


async def _placement(
    env: Environment, superset: SupersetClient, git: GitStore, uuid: str
) -> tuple[Placement, str | None]:
    """The row of another environment and its dashboard's fingerprint (None: not known).

    The dashboard's id there, seen on an earlier view, lets its charts be asked for at once
    beside it; an id that turns out wrong is asked again with the right one.
    """
    row = _answered(env)
    seen = _ids(git).get((env.id, uuid))
    try:
        found, charts = await asyncio.gather(
            superset.find_dashboard("uuid", uuid), _charts_printed(superset, seen)
        )
    except SupersetError as exc:
        update = {"reachable": False, "present": None, "error": exc.message}
        return row.model_copy(update=update), None
    if found is None:
        return row, None
    _, dashboard = found
    if seen != dashboard.id:
        _ids(git).put((env.id, uuid), dashboard.id)
        charts = await _charts_printed(superset, dashboard.id)
    printed = None if charts is None else fingerprint(dashboard.changed_on, charts)
    fresh = None if printed is None else (uuid, printed)
    return _found(env, dashboard, await _git_status(git, superset, dashboard.id, fresh)), printed


def _answered(env: Environment) -> Placement:
    """The row of an environment that answered, before its dashboard is looked for."""
    return Placement(env_id=env.id, name=env.name, stage=env.stage, reachable=True, present=False)


def _found(env: Environment, dashboard: DashboardSummary, git_status: str) -> Placement:
    """The row of an environment that has the dashboard (the source's own, or another's)."""
    update = {
        "present": True,
        "dashboard_id": dashboard.id,
        "title": dashboard.title,
        "changed_on": dashboard.changed_on,
        "git_status": git_status,
    }
    return _answered(env).model_copy(update=update)


Others = dict[str, tuple[Placement, str | None]]


async def other_placements(
    pool: SupersetPool,
    environments: list[Environment],
    git: GitStore,
    source_env_id: str,
    uuid: str,
) -> Others:
    """The rows of the environments but the source (and each one's fingerprint), at once."""
    pairs = await asyncio.gather(
        *(
            _placement(env, pool.client(env.id), git, uuid)
            for env in environments
            if env.id != source_env_id
        )
    )
    return {row.env_id: (row, printed) for row, printed in pairs}


async def dashboard_placements(
    pool: SupersetPool,
    environments: list[Environment],
    git: GitStore,
    source: SupersetClient,
    dashboard_id: int,
    known: SourceDashboard | None = None,
    others: Others | None = None,
    inventories: Inventories | None = None,
) -> DashboardPlacements:
    """The source dashboard across ``environments``, asked concurrently.

    ``known``: the source dashboard as the caller has fetched it already; ``others``: the other
    environments' rows, asked for by its UUID (:func:`other_placements`); ``inventories``: the
    targets' lists as the caller's span has them (a fleet check plans many dashboards).

    Raises:
        SupersetNotFound: the source environment has no such dashboard.
        SupersetError: the source environment did not answer (without it there is no UUID).
    """
    here = known or await fetch_source(source, dashboard_id)
    registry = EnvironmentRegistry(environments)

    async def own(env: Environment) -> Placement:
        detail = here.detail
        return _found(env, detail, await _git_status(git, source, detail.id, here.fresh))

    async def differs(row: Placement, printed: str | None) -> Placement:
        if not row.present:
            return row
        verdict = await _differs(
            pool, registry, git, source, here, row.env_id, printed, inventories
        )
        return row.model_copy(update={"differs": verdict})

    mine, seen = await asyncio.gather(
        own(registry[source.env.id]),
        _given(others)
        if others is not None
        else other_placements(pool, environments, git, source.env.id, here.uuid),
    )
    compared = await asyncio.gather(*(differs(row, printed) for row, printed in seen.values()))
    by_env = {row.env_id: row for row in [mine, *compared]}
    rows = [by_env[env.id] for env in environments]
    return DashboardPlacements(uuid=here.uuid, source_env_id=source.env.id, environments=rows)


async def _given(others: Others) -> Others:
    return others


def remembered_uuid(git: GitStore, env_id: str, dashboard_id: int) -> str | None:
    """The dashboard's UUID as an earlier view saw it (a guess: the caller checks it)."""
    return _uuids(git).get((env_id, dashboard_id))


def remember_uuid(git: GitStore, env_id: str, dashboard_id: int, uuid: str) -> None:
    _uuids(git).put((env_id, dashboard_id), uuid)


# Per store (so per app): whether the plan source → target changes anything, by both sides'
# fingerprints. A failed plan is not kept.
VerdictKey = tuple[str, str, str, str, str]
_VERDICTS: WeakKeyDictionary[GitStore, BoundedCache[VerdictKey, bool]] = WeakKeyDictionary()


# Per store: a dashboard's id in another environment by its UUID, as last seen (only a guess,
# checked by every view against the answer it asks for beside it).
_IDS: WeakKeyDictionary[GitStore, BoundedCache[tuple[str, str], int]] = WeakKeyDictionary()


def _ids(git: GitStore) -> BoundedCache[tuple[str, str], int]:
    if git not in _IDS:
        _IDS[git] = BoundedCache(VERDICT_CACHE_SIZE if git.exports.size > 0 else 0)
    return _IDS[git]


_UUIDS: WeakKeyDictionary[GitStore, BoundedCache[tuple[str, int], str]] = WeakKeyDictionary()


def _uuids(git: GitStore) -> BoundedCache[tuple[str, int], str]:
    if git not in _UUIDS:
        _UUIDS[git] = BoundedCache(VERDICT_CACHE_SIZE if git.exports.size > 0 else 0)
    return _UUIDS[git]


def _verdicts(git: GitStore) -> BoundedCache[VerdictKey, bool]:
    if git not in _VERDICTS:
        _VERDICTS[git] = BoundedCache(VERDICT_CACHE_SIZE if git.exports.size > 0 else 0)
    return _VERDICTS[git]


async def _differs(
    pool: SupersetPool,
    registry: EnvironmentRegistry,
    git: GitStore,
    source: SupersetClient,
    here: SourceDashboard,
    target_env_id: str,
    target_printed: str | None,
    inventories: Inventories | None,
) -> bool | None:
    """Whether the plan of deploying the dashboard there would change anything.

    The plan reads the source's export the git status made (the same key), then the target's
    lists and export, as ``make_plan`` does.
    """

    async def plan() -> bool:
        files = await git.export_dashboard(source, here.detail.id, here.fresh)

        def read(paths: list[str]) -> dict[str, bytes]:
            return {path: files[path] for path in paths if path in files}

        where = deploy_texts.IN_ENVIRONMENT.format(env=source.env.id)
        sources = await anyio.to_thread.run_sync(
            lambda: read_sources(read, [here.uuid], where=where)
        )
        try:
            planned = await plan_sources(
                pool.client(target_env_id),
                sources,
                source=DeploySource(env_id=source.env.id),
                target_stage=registry[target_env_id].stage,
                inventories=inventories,
            )
        except VersionSkew:  # the target's Superset cannot hold the source: it cannot equal it
            return True
        return planned.plan.differs

    try:
        if target_printed is None:
            return await plan()
        key = (source.env.id, here.uuid, here.fingerprint, target_env_id, target_printed)
        return await _verdicts(git).get_or_make(key, plan)
    except (SupersetError, DeployError, GitStoreError) as exc:
        logger.warning("placement_plan_failed", env_id=target_env_id, error=str(exc))
        return None


def forget(git: GitStore) -> None:
    """Drop every kept export, plan verdict and id guess of this store (a bench's cold view)."""
    git.exports.clear()
    kept: list[BoundedCache[Any, Any] | None] = [
        caches.get(git) for caches in (_VERDICTS, _IDS, _UUIDS)
    ]
    for cache in kept:
        if cache is not None:
            cache.clear()
