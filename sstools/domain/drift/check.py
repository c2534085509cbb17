"""One drift check of the fleet: every chosen environment against git ``main`` and its upstream.

Nothing here compares exports itself: a copy's difference from its upstream is the verdict of
the dashboard page's placements (:func:`sstools.domain.placement.dashboard_placements`, a deploy
plan upstream → here, kept by both sides' fingerprints), its difference from ``main`` the git
store's status of its export (kept in the store's export cache under the same keys). Each
environment's dashboards are listed once; then every dashboard is looked at concurrently, at most
:data:`DRIFT_CONCURRENCY` at a time, so a fleet of hundreds does not flood Superset.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import datetime

import structlog

from sstools import clock
from sstools.domain.deploy import Inventories
from sstools.domain.drift.models import DashboardDrift, DriftReport, DriftState, EnvironmentDrift
from sstools.domain.drift.rule import Reference, drift_state
from sstools.domain.placement import (
    SourceDashboard,
    dashboard_placements,
    fetch_source,
    other_placements,
)
from sstools.environments import Environment, Stage
from sstools.git_store import DEFAULT_BRANCH, DashboardStatus, GitStore, GitStoreError
from sstools.superset import SupersetError, SupersetPool
from sstools.superset.models import DashboardSummary

logger = structlog.get_logger(__name__)

# Dashboards looked at at once over the whole fleet (each is a few Superset calls, and cold,
# an export or two; the git store caps exports per environment on its own).
DRIFT_CONCURRENCY = 6
STAGES = [Stage.dev, Stage.staging, Stage.prod]
LIST_COLUMNS = ["id", "uuid", "dashboard_title", "published", "changed_on_utc"]


def upstream_of(env: Environment, environments: list[Environment]) -> Environment | None:
    """The first environment (in file order) of the nearest earlier stage; None for the first."""
    rank = STAGES.index(env.stage)
    earlier = [one for one in environments if STAGES.index(one.stage) < rank]
    if not earlier:
        return None
    nearest = max(STAGES.index(one.stage) for one in earlier)
    return next(one for one in earlier if STAGES.index(one.stage) == nearest)


@dataclass(frozen=True)
class _Listing:
    env: Environment
    by_uuid: dict[str, DashboardSummary] | None  # None: the environment did not answer
    error: str | None = None


async def _list(pool: SupersetPool, env: Environment) -> _Listing:
    client = pool.client(env.id)
    try:
        rows = await client.list_all("dashboard", columns=LIST_COLUMNS)
    except SupersetError as exc:
        return _Listing(env, None, exc.message)
    found = {
        str(row["uuid"]): DashboardSummary.from_api(row, superset_url=env.url)
        for row in rows
        if row.get("uuid")
    }
    return _Listing(env, found)


def _git_reference(status: DashboardStatus | None, tracked: bool) -> Reference | None:
    if status is None:  # not known: a tracked one counts, and never differs
        return Reference(None, None) if tracked else None
    if status.status == "untracked":
        return None
    changed = status.last_commit.time if status.last_commit else None
    return Reference(changed, status.status == "modified")


@dataclass(frozen=True)
class _Seen:
    changed_on: datetime | None
    differs_from_source: bool | None
    git: DashboardStatus | None


class _Check:
    def __init__(self, pool: SupersetPool, environments: list[Environment], git: GitStore) -> None:
        self.pool = pool
        self.environments = environments
        self.git = git
        self.turn = asyncio.Semaphore(DRIFT_CONCURRENCY)
        self.inventories = Inventories()  # each target listed once, not once per dashboard
        # An environment's dashboard is its own row and its downstream's source: fetched once.
        self._fetched: dict[tuple[str, int], asyncio.Task[SourceDashboard]] = {}

    async def fetched(self, env: Environment, dashboard_id: int) -> SourceDashboard:
        key = (env.id, dashboard_id)
        if key not in self._fetched:
            client = self.pool.client(env.id)
            self._fetched[key] = asyncio.ensure_future(fetch_source(client, dashboard_id))
        return await asyncio.shield(self._fetched[key])

    async def _git_status(
        self, env: Environment, dashboard_id: int, fresh: tuple[str, str] | None
    ) -> DashboardStatus | None:
        try:
            client = self.pool.client(env.id)
            return await self.git.dashboard_status(client, dashboard_id, DEFAULT_BRANCH, fresh)
        except (SupersetError, GitStoreError) as exc:
            logger.warning("drift_git_status_failed", env_id=env.id, error=str(exc))
            return None

    async def _against_source(
        self,
        env: Environment,
        source: Environment,
        source_id: int,
        uuid: str,
        here_id: int,
        tracked: bool,
    ) -> _Seen:
        """The placements of upstream → here (the page's comparison), and here's git status."""
        pair = [source, env]
        others = await other_placements(self.pool, pair, self.git, source.id, uuid)
        row, printed = others[env.id]
        placed = await dashboard_placements(
            self.pool,
            pair,
            self.git,
            self.pool.client(source.id),
            source_id,
            known=await self.fetched(source, source_id),
            others=others,
            inventories=self.inventories,
        )
        mine = next(one for one in placed.environments if one.env_id == env.id)
        fresh = None if printed is None else (uuid, printed)
        status = (
            await self._git_status(env, mine.dashboard_id or here_id, fresh) if tracked else None
        )
        return _Seen(row.changed_on, mine.differs, status)

    async def _alone(self, env: Environment, dashboard_id: int, tracked: bool) -> _Seen:
        """No upstream copy: its git status only (its export kept as the page keeps it)."""
        if not tracked:  # nothing on main to compare with: no export needed
            return _Seen(None, None, None)
        here = await self.fetched(env, dashboard_id)
        status = await self._git_status(env, dashboard_id, here.fresh)
        return _Seen(here.detail.changed_on, None, status)

    async def present(
        self,
        env: Environment,
        here: DashboardSummary,
        uuid: str,
        source: _Listing | None,
        tracked: dict[str, str],
    ) -> DashboardDrift:
        upstream = None if source is None or source.by_uuid is None else source.by_uuid.get(uuid)
        async with self.turn:
            try:
                if source is not None and upstream is not None:
                    seen = await self._against_source(
                        env, source.env, upstream.id, uuid, here.id, uuid in tracked
                    )
                else:
                    seen = await self._alone(env, here.id, uuid in tracked)
            except SupersetError as exc:
                logger.warning("drift_dashboard_failed", env_id=env.id, uuid=uuid, error=str(exc))
                seen = _Seen(here.changed_on, None, None)
        changed_on = seen.changed_on or here.changed_on
        source_ref: Reference | None = None
        if source is not None and source.by_uuid is None:  # upstream silent: a doubt
            source_ref = Reference(None, None)
        elif upstream is not None:
            source_ref = Reference(upstream.changed_on, seen.differs_from_source)
        git_ref = _git_reference(seen.git, uuid in tracked)
        state = drift_state(True, changed_on, [source_ref, git_ref]) or DriftState.in_sync
        return DashboardDrift(
            uuid=uuid,
            title=here.title,
            state=state,
            dashboard_id=here.id,
            source_dashboard_id=upstream.id if upstream else None,
            changed_on=changed_on,
            source_changed_on=upstream.changed_on if upstream else None,
            git_changed_on=git_ref.changed_on if git_ref else None,
            differs_from_source=seen.differs_from_source if upstream else None,
            differs_from_git=git_ref.differs if git_ref else None,
            in_git=uuid in tracked,
        )

    async def environment(
        self, listing: _Listing, source: _Listing | None, tracked: dict[str, str]
    ) -> EnvironmentDrift:
        env = listing.env
        upstream_env = source.env if source is not None else None
        counts = dict.fromkeys(DriftState, 0)
        head = {
            "env_id": env.id,
            "name": env.name,
            "stage": env.stage,
            "source_env_id": upstream_env.id if upstream_env else None,
        }
        if listing.by_uuid is None:
            return EnvironmentDrift(
                **head, reachable=False, error=listing.error, counts=counts, dashboards=[]
            )
        here = listing.by_uuid
        rows = list(
            await asyncio.gather(
                *(
                    self.present(env, summary, uuid, source, tracked)
                    for uuid, summary in here.items()
                )
            )
        )
        upstream_rows = {} if source is None or source.by_uuid is None else source.by_uuid
        # A draft upstream is not expected here; what main tracks is expected everywhere.
        expected = {uuid: one.title for uuid, one in upstream_rows.items() if one.published}
        expected.update({uuid: title for uuid, title in tracked.items() if uuid not in expected})
        for uuid, title in expected.items():
            if uuid in here:
                continue
            upstream = upstream_rows.get(uuid)
            rows.append(
                DashboardDrift(
                    uuid=uuid,
                    title=title,
                    state=DriftState.missing,
                    dashboard_id=None,
                    source_dashboard_id=upstream.id if upstream else None,
                    changed_on=None,
                    source_changed_on=upstream.changed_on if upstream else None,
                    git_changed_on=None,
                    differs_from_source=None,
                    differs_from_git=None,
                    in_git=uuid in tracked,
                )
            )
        rows.sort(key=lambda one: (not one.state.drifted, one.title.casefold(), one.uuid))
        for one in rows:
            counts[one.state] += 1
        return EnvironmentDrift(**head, reachable=True, counts=counts, dashboards=rows)


async def _tracked(git: GitStore) -> dict[str, str]:
    """The dashboards ``main`` tracks: UUID → title."""
    status = await git.status(None, [], DEFAULT_BRANCH)
    return {one.uuid: one.title for one in status.dashboards}


async def check_drift(
    pool: SupersetPool,
    environments: list[Environment],
    git: GitStore,
    env_ids: list[str] | None = None,
) -> DriftReport:
    """The chosen environments (all by default), each against its upstream and ``main``."""
    began = time.perf_counter()
    chosen = [env for env in environments if env_ids is None or env.id in env_ids]
    upstreams = {env.id: upstream_of(env, environments) for env in chosen}
    needed = {env.id: env for env in chosen}
    needed.update({one.id: one for one in upstreams.values() if one is not None})
    listings, tracked = await asyncio.gather(
        asyncio.gather(*(_list(pool, env) for env in needed.values())), _tracked(git)
    )
    by_id = {listing.env.id: listing for listing in listings}
    check = _Check(pool, environments, git)

    def source_of(env: Environment) -> _Listing | None:
        upstream = upstreams[env.id]
        return None if upstream is None else by_id[upstream.id]

    reports = await asyncio.gather(
        *(check.environment(by_id[env.id], source_of(env), tracked) for env in chosen)
    )
    return DriftReport(
        checked_at=clock.now(),
        seconds=round(time.perf_counter() - began, 3),
        environments=list(reports),
    )
