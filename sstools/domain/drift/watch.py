"""The latest drift report: kept in this process, and recorded by the scheduled watch.

A report computed on request is kept per git store (per app) until a newer one comes; the
scheduled watch (:mod:`sstools.domain.drift.scheduled`) records each of its reports as a
``drift_watch`` task, which every worker reads. The newest of the two is the latest.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from sqlalchemy.ext.asyncio import AsyncSession

from sstools.domain.drift.check import check_drift
from sstools.domain.drift.models import DriftReport
from sstools.git_store import GitStore
from sstools.http.services import Services
from sstools.storage import tasks as records
from sstools.tasks import TaskKind, TaskStatus

WATCH_KIND = TaskKind.drift_watch.value  # the watch's task records

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


async def fresh(services: Services) -> DriftReport:
    """A check now, kept as the latest."""
    report = await check_drift(
        services.superset, list(services.environments.values()), services.git
    )
    remember(services.git, report)
    return report
