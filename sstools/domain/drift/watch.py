"""The latest drift report: kept in this process, and recorded by the scheduled watch.

A report computed on request is kept per git store (per app) until a newer one comes; the
scheduled watch (:mod:`sstools.domain.drift.scheduled`) records each of its reports as a
``drift_watch`` task, which every worker reads. The newest of the two is the latest.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.domain.drift.check import Progress, check_drift, upstream_of
from sstools.domain.drift.models import DriftReport
from sstools.git_store import GitStore
from sstools.http.services import Services
from sstools.storage import tasks as records
from sstools.storage.models import TaskRecord
from sstools.tasks import TaskKind, TaskStatus

WATCH_KIND = TaskKind.drift_watch.value  # the watch's task records
# Tasks that write dashboards into an environment: once one succeeds, that environment's drift
# (and its downstream's, whose source it is) is checked again.
WRITES = (TaskKind.deploy, TaskKind.migration, TaskKind.rollback, TaskKind.restore)

_LATEST: WeakKeyDictionary[GitStore, DriftReport] = WeakKeyDictionary()


def remember(git: GitStore, report: DriftReport) -> None:
    kept = _LATEST.get(git)
    if kept is None or kept.checked_at <= report.checked_at:
        _LATEST[git] = report


async def recorded(session: AsyncSession) -> DriftReport | None:
    """The newest report the watch recorded (its task's result), if any."""
    found = await records.list_tasks(
        session,
        env_id=None,
        status=TaskStatus.succeeded.value,
        kind=TaskKind.drift_watch.value,
        limit=1,
    )
    if not found or not found[0].result:
        return None
    report = DriftReport.model_validate(found[0].result)
    return report.model_copy(update={"task_id": found[0].id})


async def latest(services: Services, session: AsyncSession) -> DriftReport | None:
    """The newest report known, without asking Superset anything (the watch is started if
    it is not running yet: on SQLite DBOS starts lazily)."""
    await services.tasks.start_schedules()
    kept = _LATEST.get(services.git)
    stored = await recorded(session)
    known = [one for one in (kept, stored) if one is not None]
    return max(known, key=lambda one: one.checked_at) if known else None


async def written_since(
    services: Services, session: AsyncSession, report: DriftReport
) -> list[str]:
    """The environments whose drift a write that succeeded after their check has made stale:
    the ones it wrote, and those downstream of them (their source moved)."""
    oldest = min((one.checked_at or report.checked_at for one in report.environments), default=None)
    if oldest is None:
        return []
    query = select(TaskRecord.env_id, TaskRecord.finished_at).where(
        TaskRecord.kind.in_([kind.value for kind in WRITES]),
        TaskRecord.status == TaskStatus.succeeded.value,
        TaskRecord.finished_at > oldest,
    )
    finished = (await session.execute(query)).all()
    checked = {one.env_id: one.checked_at or report.checked_at for one in report.environments}
    written = {
        env_id for env_id, at in finished if env_id in checked and at and at > checked[env_id]
    }
    everyone = list(services.environments.values())
    downstream = {
        env.id
        for env in everyone
        if (upstream := upstream_of(env, everyone)) is not None and upstream.id in written
    }
    return [env.id for env in everyone if env.id in written | downstream]  # the file's order


async def fresh(
    services: Services,
    env_ids: list[str] | None = None,
    base: DriftReport | None = None,
    progress: Progress | None = None,
) -> DriftReport:
    """A check now, kept as the latest; ``env_ids``: only those, put into ``base``."""
    report = await check_drift(
        services.superset,
        list(services.environments.values()),
        services.git,
        env_ids,
        progress,
    )
    if base is not None and env_ids is not None:
        again = {one.env_id: one for one in report.environments}
        merged = [again.get(one.env_id, one) for one in base.environments]
        report = base.model_copy(update={"environments": merged})
    remember(services.git, report)
    return report
