"""One drift check of the fleet: every chosen environment against git ``main`` and its upstream.

«Differs» has one rule, :attr:`sstools.domain.deploy.Plan.differs` — a deploy from the reference
would change something — read here for both references (upstream → here, and ``main`` → here)
and by the compare page. The two plans read here's export once.

What it asks Superset: per environment, its dashboards, its charts with their dashboards and
its inventory (the four lists a plan reads), each once per check; then the exports a plan
needs, kept under a fingerprint of those lists' rows (a dashboard's ``changed_on``, its charts'
and their datasets'), so a check where nothing moved exports nothing and asks nothing more.
Dashboards are looked at concurrently, at most :data:`DRIFT_CONCURRENCY` at a time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

import anyio.to_thread
import structlog

from sstools import clock
from sstools.domain.deploy import (
    DeployError,
    DeploySource,
    Inventories,
    Inventory,
    Reader,
    VersionSkew,
    plan_sources,
    read_sources,
)
from sstools.domain.drift.models import DashboardDrift, DriftReport, DriftState, EnvironmentDrift
from sstools.domain.drift.rule import Reference, drift_state
from sstools.domain.placement import fingerprint
from sstools.environments import Environment, Stage
from sstools.git_store import DEFAULT_BRANCH, BoundedCache, GitStore, GitStoreError
from sstools.superset import SupersetError, SupersetPool
from sstools.superset.models import DashboardSummary
from sstools.texts import deploy as deploy_texts

logger = structlog.get_logger(__name__)

# Dashboards looked at at once over the whole fleet (warm, none asks Superset anything; cold,
# an export or two each; the git store caps exports per environment on its own).
DRIFT_CONCURRENCY = 6
STAGES = [Stage.dev, Stage.staging, Stage.prod]
LIST_COLUMNS = ["id", "uuid", "dashboard_title", "published", "changed_on_utc"]
CHART_COLUMNS = ["id", "uuid", "changed_on_utc", "datasource_id", "dashboards.id"]
VERDICT_CACHE_SIZE = 512

Progress = Callable[[int, int], None]  # (dashboards looked at, dashboards in all)


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
    printed: dict[str, str] = field(default_factory=dict)  # UUID → what its export is made of
    error: str | None = None


def _printed(
    dashboards: list[dict[str, Any]], charts: list[dict[str, Any]], found: Inventory
) -> dict[str, str]:
    """Each dashboard's fingerprint: its ``changed_on``, its charts' and their datasets'."""
    datasets = {row.id: str(row.changed_on) for row in found.objects.get("datasets", {}).values()}
    on: dict[int, list[tuple[str, ...]]] = {}
    for chart in charts:
        source = chart.get("datasource_id")
        seen = (
            str(chart.get("id")),
            str(chart.get("uuid")),
            str(chart.get("changed_on_utc")),
            datasets.get(source, "") if isinstance(source, int) else "",
        )
        for dashboard in chart.get("dashboards") or []:
            on.setdefault(int(dashboard["id"]), []).append(seen)
    return {
        str(row["uuid"]): fingerprint(row.get("changed_on_utc"), sorted(on.get(int(row["id"]), [])))
        for row in dashboards
        if row.get("uuid")
    }


async def _list(pool: SupersetPool, env: Environment, inventories: Inventories) -> _Listing:
    """The environment's dashboards; with its charts and inventory, each one's fingerprint (a
    failing chart or inventory list only leaves them unknown: every plan is then made anew)."""
    client = pool.client(env.id)

    async def printed(rows: list[dict[str, Any]]) -> dict[str, str]:
        try:
            charts, found = await asyncio.gather(
                client.list_all("chart", columns=CHART_COLUMNS),
                inventories.of(client, dashboards=rows),  # not listed twice
            )
        except SupersetError as exc:
            logger.warning("drift_lists_failed", env_id=env.id, error=str(exc))
            return {}
        return _printed(rows, charts, found)

    try:
        rows = await client.list_all("dashboard", columns=LIST_COLUMNS)
    except SupersetError as exc:
        return _Listing(env, None, error=exc.message)
    by_uuid = {
        str(row["uuid"]): DashboardSummary.from_api(row, superset_url=env.url)
        for row in rows
        if row.get("uuid")
    }
    return _Listing(env, by_uuid, await printed(rows))


# Per store (so per app): whether a deploy reference → here changes anything, by what both
# sides are made of (an environment's fingerprint, or main's head commit). A failed plan is
# not kept.
_VERDICTS: WeakKeyDictionary[GitStore, BoundedCache[tuple[str, ...], bool]] = WeakKeyDictionary()


def _verdicts(git: GitStore) -> BoundedCache[tuple[str, ...], bool]:
    if git not in _VERDICTS:
        _VERDICTS[git] = BoundedCache(VERDICT_CACHE_SIZE if git.exports.size > 0 else 0)
    return _VERDICTS[git]


@dataclass(frozen=True)
class _Main:
    """What ``main`` tracks (UUID → title) and its head commit (None: no commit yet)."""

    tracked: dict[str, str]
    head: str | None


async def _main(git: GitStore) -> _Main:
    try:
        status = await git.status(None, [], DEFAULT_BRANCH)
    except GitStoreError:
        return _Main({}, None)
    return _Main({one.uuid: one.title for one in status.dashboards}, status.head.id)


class _Check:
    def __init__(
        self,
        pool: SupersetPool,
        git: GitStore,
        main: _Main,
        inventories: Inventories,
        progress: Progress | None,
    ) -> None:
        self.pool = pool
        self.git = git
        self.main = main
        self.turn = asyncio.Semaphore(DRIFT_CONCURRENCY)
        self.inventories = inventories  # each environment listed once, not once per dashboard
        self.progress = progress
        self.total = 0
        self.done = 0
        # A dashboard is its own row and its downstream's source: exported once per check.
        self._exports: dict[tuple[str, str], asyncio.Task[dict[str, bytes]]] = {}

    def looked_at(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)

    async def export(self, listing: _Listing, uuid: str) -> dict[str, bytes]:
        """The dashboard's normalised export, kept under its fingerprint."""
        key = (listing.env.id, uuid)
        if key not in self._exports:
            assert listing.by_uuid is not None
            printed = listing.printed.get(uuid)
            fresh = None if printed is None else (uuid, printed)
            client = self.pool.client(listing.env.id)
            made = self.git.export_dashboard(client, listing.by_uuid[uuid].id, fresh)
            self._exports[key] = asyncio.ensure_future(made)
        return await asyncio.shield(self._exports[key])

    async def differs(
        self, key: tuple[str, ...], read: Reader, where: str, here: _Listing, uuid: str
    ) -> bool | None:
        """Whether a deploy of what ``read`` holds into ``here`` would change anything: the
        plan's verdict (the compare page's), kept by what both sides are made of."""

        async def plan() -> bool:
            known = await self.export(here, uuid)
            sources = await anyio.to_thread.run_sync(
                lambda: read_sources(read, [uuid], where=where)
            )
            source = DeploySource(git_ref=DEFAULT_BRANCH) if key[0] == DEFAULT_BRANCH else None
            try:
                planned = await plan_sources(
                    self.pool.client(here.env.id),
                    sources,
                    source=source or DeploySource(env_id=key[0]),
                    target_stage=here.env.stage,
                    inventories=self.inventories,
                    target_known=known,
                )
            except VersionSkew:  # the target's Superset cannot hold the source: it cannot equal it
                return True
            return planned.plan.differs

        printed = here.printed.get(uuid)
        try:
            if printed is None or "" in key:  # a side not known: plan, keep nothing
                return await plan()
            return await _verdicts(self.git).get_or_make((*key, here.env.id, printed), plan)
        except (SupersetError, DeployError, GitStoreError) as exc:
            logger.warning("drift_plan_failed", env_id=here.env.id, uuid=uuid, error=str(exc))
            return None

    async def from_source(self, here: _Listing, source: _Listing, uuid: str) -> bool | None:
        files = await self.export(source, uuid)

        def read(paths: list[str]) -> dict[str, bytes]:
            return {path: files[path] for path in paths if path in files}

        where = deploy_texts.IN_ENVIRONMENT.format(env=source.env.id)
        key = (source.env.id, uuid, source.printed.get(uuid) or "")
        return await self.differs(key, read, where, here, uuid)

    async def from_main(self, here: _Listing, uuid: str) -> Reference:
        """``main`` as a reference: when a commit last touched it, and whether it differs."""
        path = f"dashboards/{uuid}.yaml"
        last = await anyio.to_thread.run_sync(self.git.repository.last_commit, DEFAULT_BRANCH, path)

        def read(paths: list[str]) -> dict[str, bytes]:
            return self.git.repository.read(DEFAULT_BRANCH, paths)[1]

        where = deploy_texts.IN_BRANCH.format(branch=DEFAULT_BRANCH)
        key = (DEFAULT_BRANCH, uuid, self.main.head or "")
        differs = await self.differs(key, read, where, here, uuid)
        return Reference(last.time if last else None, differs)

    async def present(self, here: _Listing, uuid: str, source: _Listing | None) -> DashboardDrift:
        assert here.by_uuid is not None
        row = here.by_uuid[uuid]
        upstream = None if source is None or source.by_uuid is None else source.by_uuid.get(uuid)
        tracked = uuid in self.main.tracked
        source_ref: Reference | None = None
        git_ref: Reference | None = None
        async with self.turn:
            try:
                if source is not None and upstream is not None:
                    source_ref = Reference(
                        upstream.changed_on, await self.from_source(here, source, uuid)
                    )
                if tracked:
                    git_ref = await self.from_main(here, uuid)
            except SupersetError as exc:  # an export failed: a doubt, never drift
                logger.warning("drift_dashboard_failed", env_id=here.env.id, error=str(exc))
        self.looked_at()
        if source is not None and source.by_uuid is None:  # upstream silent: a doubt
            source_ref = Reference(None, None)
        elif upstream is not None and source_ref is None:
            source_ref = Reference(upstream.changed_on, None)
        if tracked and git_ref is None:
            git_ref = Reference(None, None)
        state = drift_state(True, row.changed_on, [source_ref, git_ref]) or DriftState.in_sync
        return DashboardDrift(
            uuid=uuid,
            title=row.title,
            state=state,
            dashboard_id=row.id,
            source_dashboard_id=upstream.id if upstream else None,
            changed_on=row.changed_on,
            source_changed_on=upstream.changed_on if upstream else None,
            git_changed_on=git_ref.changed_on if git_ref else None,
            differs_from_source=source_ref.differs if upstream and source_ref else None,
            differs_from_git=git_ref.differs if git_ref else None,
            in_git=tracked,
        )

    def missing(self, here: _Listing, source: _Listing | None) -> list[DashboardDrift]:
        """What a reference has and here lacks: published upstream, or tracked by ``main``."""
        assert here.by_uuid is not None
        upstream_rows = {} if source is None or source.by_uuid is None else source.by_uuid
        # A draft upstream is not expected here; what main tracks is expected everywhere.
        expected = {uuid: one.title for uuid, one in upstream_rows.items() if one.published}
        expected.update(
            {uuid: title for uuid, title in self.main.tracked.items() if uuid not in expected}
        )
        rows = []
        for uuid, title in expected.items():
            if uuid in here.by_uuid:
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
                    in_git=uuid in self.main.tracked,
                )
            )
        return rows

    async def environment(self, here: _Listing, source: _Listing | None) -> EnvironmentDrift:
        env = here.env
        counts = dict.fromkeys(DriftState, 0)
        head = {
            "env_id": env.id,
            "name": env.name,
            "stage": env.stage,
            "source_env_id": source.env.id if source is not None else None,
        }
        if here.by_uuid is None:
            return EnvironmentDrift(
                **head, reachable=False, error=here.error, counts=counts, dashboards=[]
            )
        rows = list(
            await asyncio.gather(*(self.present(here, uuid, source) for uuid in here.by_uuid))
        )
        rows += self.missing(here, source)
        rows.sort(key=lambda one: (not one.state.drifted, one.title.casefold(), one.uuid))
        for one in rows:
            counts[one.state] += 1
        return EnvironmentDrift(**head, reachable=True, counts=counts, dashboards=rows)


async def check_drift(
    pool: SupersetPool,
    environments: list[Environment],
    git: GitStore,
    env_ids: list[str] | None = None,
    progress: Progress | None = None,
) -> DriftReport:
    """The chosen environments (all by default), each against its upstream and ``main``.

    ``progress`` is told (dashboards looked at, dashboards in all) as the check goes.
    """
    began = time.perf_counter()
    chosen = [env for env in environments if env_ids is None or env.id in env_ids]
    upstreams = {env.id: upstream_of(env, environments) for env in chosen}
    needed = {env.id: env for env in chosen}
    needed.update({one.id: one for one in upstreams.values() if one is not None})
    inventories = Inventories()
    listings, main = await asyncio.gather(
        asyncio.gather(*(_list(pool, env, inventories) for env in needed.values())), _main(git)
    )
    by_id = {listing.env.id: listing for listing in listings}
    check = _Check(pool, git, main, inventories, progress)  # the plans read the same lists
    check.total = sum(len(by_id[env.id].by_uuid or {}) for env in chosen)
    if progress is not None:
        progress(0, check.total)

    def source_of(env: Environment) -> _Listing | None:
        upstream = upstreams[env.id]
        return None if upstream is None else by_id[upstream.id]

    reports = await asyncio.gather(
        *(check.environment(by_id[env.id], source_of(env)) for env in chosen)
    )
    now = clock.now()
    return DriftReport(
        checked_at=now,
        seconds=round(time.perf_counter() - began, 3),
        environments=[one.model_copy(update={"checked_at": now}) for one in reports],
    )
