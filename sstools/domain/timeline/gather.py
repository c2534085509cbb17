"""A dashboard over time: its commits on main, the snapshots deploys took before overwriting it,
the backups that hold it and its ``changed_on`` in each environment, newest first.

Every point says what bringing the dashboard back to it plans from — a commit id (a deploy
plan's ``source.git_ref``) or a backup — so a restore is the usual plan → card → digest path.
Nothing here writes; a backup is read by its manifest only, never unpacked.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

import anyio.to_thread
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.domain.backups import ArchiveCorrupt, archive
from sstools.domain.deploy import UnknownDashboard, read_sources
from sstools.domain.deploy.rollback import SnapshotRecord
from sstools.domain.timeline.models import RestoreSource, Timeline, TimelinePoint
from sstools.environments import Environment, EnvironmentRegistry
from sstools.errors import SstoolsError
from sstools.git_store import DEFAULT_BRANCH, GitStore
from sstools.storage import tasks as records
from sstools.superset import SupersetError, SupersetPool
from sstools.superset.models import DashboardSummary
from sstools.tasks import dashboard_key
from sstools.texts import timeline as texts

GIT_LIMIT = 50  # commits on main
SNAPSHOT_LIMIT = 50  # deploys and migrations that wrote the dashboard
LIVE_TIMEOUT_S = 5.0  # an environment that does not answer is left out, not waited for
_SNAPSHOTTING = ("deploy", "migration")


class DashboardMissing(SstoolsError, LookupError):
    """The dashboard is not in the environment the timeline was asked of."""

    def __init__(self, dashboard_id: int, env: Environment) -> None:
        super().__init__(texts.UNKNOWN_DASHBOARD.format(id=dashboard_id, env=env.name))


def _tracked_paths(git: GitStore, uuid: str) -> list[str]:
    """The dashboard's file and its charts' and datasets' as main holds them now."""
    own = f"dashboards/{uuid}.yaml"

    def read(paths: list[str]) -> dict[str, bytes]:
        return git.repository.read(DEFAULT_BRANCH, paths)[1]

    try:
        sources = read_sources(read, [uuid], where=DEFAULT_BRANCH)
    except UnknownDashboard:
        return [own]
    paths = {path for path in sources.dashboards[uuid] if not path.startswith("databases/")}
    return sorted(paths | {own})


async def git_points(git: GitStore, uuid: str, limit: int = GIT_LIMIT) -> list[TimelinePoint]:
    paths = await anyio.to_thread.run_sync(_tracked_paths, git, uuid)
    commits = await git.history(paths, limit=limit)
    return [
        TimelinePoint(
            kind="git",
            when=commit.time,
            who=commit.author.split(" <", 1)[0],
            label=texts.GIT_LABEL.format(message=commit.message.splitlines()[0]),
            env_id=None,
            restore=RestoreSource(git_commit=commit.id),
        )
        for commit in commits
    ]


async def snapshot_points(
    session: AsyncSession, environments: EnvironmentRegistry, uuid: str
) -> list[TimelinePoint]:
    """The snapshots deploys and migrations took of this dashboard before overwriting it."""
    found = await records.tasks_writing(
        session, dashboard_key(uuid), kinds=_SNAPSHOTTING, limit=SNAPSHOT_LIMIT
    )
    points = []
    for record in found:
        raw = (record.result or {}).get("snapshot")
        try:
            snapshot = SnapshotRecord.model_validate(raw)
        except ValidationError:
            continue
        if snapshot.commit is None or uuid not in snapshot.dashboards:
            continue
        points.append(
            TimelinePoint(
                kind="snapshot",
                when=record.started_at or record.created_at,
                who=(
                    texts.SNAPSHOT_WHO_APPROVED.format(
                        who=record.started_by, approver=record.approved_by
                    )
                    if record.approved_by
                    else record.started_by
                ),
                label=texts.SNAPSHOT_LABEL.format(
                    task=record.id[:8], env=environments.name_of(record.env_id)
                ),
                env_id=record.env_id,
                task_id=record.id,
                restore=RestoreSource(git_commit=snapshot.commit),
            )
        )
    return points


def _manifest(path: Path) -> archive.Manifest | None:
    """The archive's manifest, None if it is damaged: one bad archive on disk leaves the
    others' points on the timeline (a restore from it would say why it cannot)."""
    try:
        return archive.manifest(path)
    except ArchiveCorrupt:
        return None


def _backups_holding(
    backup_dir: Path, environments: EnvironmentRegistry, uuid: str
) -> list[TimelinePoint]:
    wanted = f"dashboards/{uuid}.yaml"
    points = []
    for env_id in archive.environments_with_backups(backup_dir):
        env = environments.name_of(env_id)
        for path in archive.archives(backup_dir, env_id):
            manifest = _manifest(path)
            if manifest is None or wanted not in manifest.files:
                continue
            points.append(
                TimelinePoint(
                    kind="backup",
                    when=manifest.created_at,
                    who=manifest.created_by,
                    label=texts.BACKUP_LABEL.format(env=env),
                    env_id=env_id,
                    restore=RestoreSource(backup_id=manifest.id),
                )
            )
    return points


async def backup_points(
    backup_dir: Path, environments: EnvironmentRegistry, uuid: str
) -> list[TimelinePoint]:
    return await anyio.to_thread.run_sync(_backups_holding, backup_dir, environments, uuid)


async def _live_in(superset: SupersetPool, env: Environment, uuid: str) -> TimelinePoint | None:
    try:
        async with asyncio.timeout(LIVE_TIMEOUT_S):
            found = await superset.client(env.id).find_dashboard("uuid", uuid)
    except (SupersetError, TimeoutError):
        return None
    return _live_point(env, found[1]) if found else None


def live_point(env: Environment, changed_on: datetime | None) -> TimelinePoint | None:
    """The dashboard as ``env`` has it now (its ``changed_on``); None without one."""
    if changed_on is None:
        return None
    return TimelinePoint(
        kind="live",
        when=changed_on,
        who=None,
        label=texts.LIVE_LABEL.format(env=env.name),
        env_id=env.id,
        restore=None,
    )


def _live_point(env: Environment, row: DashboardSummary) -> TimelinePoint | None:
    return live_point(env, row.changed_on)


async def kept_points(
    *,
    environments: EnvironmentRegistry,
    git: GitStore,
    session: AsyncSession,
    backup_dir: Path,
    uuid: str,
) -> list[TimelinePoint]:
    """What sstools kept of the dashboard (commits, snapshots, backups), no Superset call."""
    committed, backed_up = await asyncio.gather(
        git_points(git, uuid), backup_points(backup_dir, environments, uuid)
    )
    snapshots = await snapshot_points(session, environments, uuid)
    return [*committed, *snapshots, *backed_up]


def newest_first(points: list[TimelinePoint]) -> list[TimelinePoint]:
    return sorted(points, key=lambda point: point.when, reverse=True)


async def dashboard_timeline(
    *,
    superset: SupersetPool,
    environments: EnvironmentRegistry,
    git: GitStore,
    session: AsyncSession,
    backup_dir: Path,
    env: Environment,
    dashboard_id: int,
) -> Timeline:
    """The dashboard ``dashboard_id`` of ``env`` over time, newest first.

    Raises:
        DashboardMissing: ``env`` has no such dashboard.
        SupersetError: ``env`` did not answer.
    """
    found = await superset.client(env.id).find_dashboard("id", dashboard_id)
    if found is None:
        raise DashboardMissing(dashboard_id, env)
    uuid, row = found
    others = [one for one in environments.values() if one.id != env.id]
    kept, live = await asyncio.gather(
        kept_points(
            environments=environments,
            git=git,
            session=session,
            backup_dir=backup_dir,
            uuid=uuid,
        ),
        asyncio.gather(*(_live_in(superset, one, uuid) for one in others)),
    )
    here = _live_point(env, row)
    points = [*kept, *(one for one in [here, *live] if one is not None)]
    return Timeline(
        env_id=env.id,
        dashboard_id=dashboard_id,
        uuid=uuid,
        title=row.title,
        points=newest_first(points),
    )
