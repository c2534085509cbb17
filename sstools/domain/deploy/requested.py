"""A plan asked for by a request: the source read from an environment or a git ref, the target's
side read meanwhile, then :func:`~sstools.domain.deploy.planner.plan_sources`.

The source's list and export go out with the target's lists, and the target's export of the
requested dashboards while the source's files are read: a plan waits for the slower side of
each pair, not for both.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio.to_thread
from dulwich.objects import valid_hexsha

from sstools.domain.deploy import _target
from sstools.domain.deploy._bundle import Reader
from sstools.domain.deploy._sources import read_sources
from sstools.domain.deploy.errors import InvalidPlanRequest, UnknownDashboard, UnknownEnvironment
from sstools.domain.deploy.models import PlanRequest
from sstools.domain.deploy.planner import PlannedDeploy, plan_sources
from sstools.environments import EnvironmentRegistry
from sstools.git_store import GitStore, normalise
from sstools.superset import SupersetClient, SupersetPool
from sstools.texts import deploy as texts
from sstools.texts import timeline as timeline_texts


def _check(request: PlanRequest, environments: EnvironmentRegistry) -> None:
    for env_id in (request.target_env_id, request.source.env_id):
        if env_id is not None and env_id not in environments:
            raise UnknownEnvironment(env_id, list(environments))
    if request.source.env_id is None and request.source.git_ref is None:
        raise InvalidPlanRequest("source", texts.SOURCE_MISSING)
    if bool(request.dashboard_ids) == bool(request.dashboard_uuids):
        raise InvalidPlanRequest("dashboard_ids", texts.DASHBOARDS_MISSING)
    if request.dashboard_ids and request.source.env_id is None:
        raise InvalidPlanRequest("source.env_id", texts.SOURCE_ENV_MISSING)
    if request.source.git_ref is None and request.source.env_id == request.target_env_id:
        raise InvalidPlanRequest("target_env_id", texts.TARGET_IS_SOURCE)


async def _uuids(
    superset: SupersetClient, request: PlanRequest, rows: list[dict[str, Any]] | None = None
) -> dict[str, int | None]:
    """The requested dashboards' UUIDs (in request order) with their ids in the source env
    (``rows``: its dashboards' ids and UUIDs, when listed already)."""
    if rows is None:
        rows = await superset.list_all("dashboard", columns=["id", "uuid"])
    by_id = {int(row["id"]): str(row["uuid"]) for row in rows}
    ids = {uuid: number for number, uuid in by_id.items()}
    for number in request.dashboard_ids:
        if number not in by_id:
            raise UnknownDashboard(number, texts.IN_ENVIRONMENT.format(env=superset.env.id))
    uuids = [by_id[number] for number in request.dashboard_ids] or request.dashboard_uuids
    return {uuid: ids.get(uuid) for uuid in dict.fromkeys(uuids)}


async def _listed_and_exported(
    client: SupersetClient, request: PlanRequest
) -> tuple[dict[str, int | None], bytes]:
    """The requested dashboards' UUIDs (see :func:`_uuids`) and their export. Asked by id, the
    list and the export go at once (an unknown id fails the export; the list names it)."""
    if not request.dashboard_ids:
        uuids = await _uuids(client, request)
        missing = [uuid for uuid, number in uuids.items() if number is None]
        if missing:
            raise UnknownDashboard(missing[0], texts.IN_ENVIRONMENT.format(env=client.env.id))
        return uuids, await client.export_dashboards([n for n in uuids.values() if n is not None])
    listed, exported = await asyncio.gather(
        client.list_all("dashboard", columns=["id", "uuid"]),
        client.export_dashboards(list(dict.fromkeys(request.dashboard_ids))),
        return_exceptions=True,
    )
    if isinstance(listed, BaseException):
        raise listed
    uuids = await _uuids(client, request, listed)  # an unknown id: UnknownDashboard here
    if isinstance(exported, BaseException):
        raise exported
    return uuids, exported


async def _source_reader(
    request: PlanRequest, superset: SupersetPool, git: GitStore
) -> tuple[Reader, list[str], str]:
    """How to read the source's files, the requested dashboards' UUIDs and where they are."""
    source = request.source
    client = superset.client(source.env_id) if source.env_id else None
    if source.git_ref is not None:
        uuids: dict[str, int | None] = (
            await _uuids(client, request) if client else dict.fromkeys(request.dashboard_uuids)
        )
        branch = source.git_ref
        # A full commit id pins that commit (a point of a dashboard's timeline), each object
        # read checked against its id; anything else is a branch.
        pinned = len(branch) == 40 and valid_hexsha(branch)

        def read(paths: list[str]) -> dict[str, bytes]:
            if pinned:
                return git.repository.read_commit(branch, paths)[1]
            return git.repository.read(branch, paths)[1]

        if pinned:
            return read, list(uuids), timeline_texts.IN_COMMIT.format(commit=branch[:8])
        return read, list(uuids), texts.IN_BRANCH.format(branch=branch)
    assert client is not None
    where = texts.IN_ENVIRONMENT.format(env=client.env.id)
    uuids, exported = await _listed_and_exported(client, request)
    files = await anyio.to_thread.run_sync(normalise, exported)

    def read_export(paths: list[str]) -> dict[str, bytes]:
        return {path: files[path] for path in paths if path in files}

    return read_export, list(uuids), where


async def _target_dashboards(
    target: SupersetClient, inventories: _target.Inventories, uuids: list[str]
) -> dict[str, bytes]:
    """The target's files of the requested dashboards it has (one export, with their charts and
    datasets): asked while the source is still being read."""
    found = await inventories.of(target)
    ids = [row.id for uuid in uuids if (row := found.get("dashboards", uuid)) is not None]
    return await _target.export_dashboards(target, ids)


async def make_plan(
    request: PlanRequest,
    superset: SupersetPool,
    environments: EnvironmentRegistry,
    git: GitStore,
) -> PlannedDeploy:
    """Plan importing the requested dashboards into ``request.target_env_id``.

    Raises:
        UnknownEnvironment, UnknownDashboard, InvalidPlanRequest: see ``errors``.
        SupersetError: an environment did not answer.
        GitStoreError: the git ref does not exist.
    """
    _check(request, environments)
    target = superset.client(request.target_env_id)
    inventories = _target.Inventories()
    listing = asyncio.ensure_future(inventories.of(target))
    try:
        read, uuids, where = await _source_reader(request, superset, git)
    finally:
        await asyncio.gather(listing, return_exceptions=True)  # never left running
    exporting = asyncio.ensure_future(_target_dashboards(target, inventories, uuids))
    try:
        sources = await anyio.to_thread.run_sync(lambda: read_sources(read, uuids, where=where))
        known = await exporting
    finally:
        await asyncio.gather(exporting, return_exceptions=True)
    from_env = request.source.env_id if request.source.git_ref is None else None
    return await plan_sources(
        target,
        sources,
        source=request.source,
        target_stage=environments[request.target_env_id].stage,
        database_mapping=request.database_mapping,
        inventories=inventories,
        target_known=known,
        source_release=await superset.client(from_env).release() if from_env else None,
    )
