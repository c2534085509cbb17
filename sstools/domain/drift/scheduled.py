"""The drift watch as a scheduled durable task: DBOS's scheduler runs it on
``SSTOOLS_DRIFT_WATCH_CRON`` (every 15 minutes by default; empty: off), and its report is the
``drift_watch`` task's result, which ``GET /api/drift``, ``/drift`` and the home page read.

A tick runs in DBOS's thread with clients of its own (:func:`sstools.tasks.with_superset`). The
exports it makes are kept for the next tick in this worker (by the same keys as the dashboard
page's), so a tick where nothing moved exports nothing again.
"""

from __future__ import annotations

from typing import Any

from sstools.domain.drift.check import check_drift
from sstools.git_store import BoundedCache, GitStore
from sstools.git_store.store import EXPORT_CACHE_SIZE, ExportKey
from sstools.superset import SupersetPool
from sstools.tasks import TaskKind, context, scheduled_task, with_superset

# Per repository folder: the exports earlier ticks made (a tick's store is new: its locks
# belong to the tick's own event loop).
_EXPORTS: dict[str, BoundedCache[ExportKey, dict[str, bytes]]] = {}


@scheduled_task(TaskKind.drift_watch, cron=lambda settings: settings.drift_watch_cron)
def drift_watch() -> dict[str, Any]:
    """Check every environment; the report, as JSON, is the tick's task result."""
    settings, environments = context().settings, context().environments
    exports = _EXPORTS.setdefault(str(settings.git_dir), BoundedCache(EXPORT_CACHE_SIZE))
    git = GitStore.from_settings(settings, exports)

    async def work(pool: SupersetPool) -> dict[str, Any]:
        report = await check_drift(pool, list(environments.values()), git)
        return report.model_dump(mode="json")

    return with_superset(work)
