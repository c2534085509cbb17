"""Applying a plan, and undoing it: the durable workflows behind deploy, migration and rollback.

A deploy runs as a task (:mod:`sstools.tasks`): check the target's databases answer, snapshot
what it will overwrite (for a stage that keeps snapshots), then import everything it changes in
one step, in as few of Superset's import calls as it takes (:mod:`._importing`: one transaction,
unless a dashboard needs Superset's dashboard import, a second step then). Every step is safe to
run again after a restart: an import overwrites, a snapshot of the same files commits nothing
new. A step that fails ends the task ``failed`` with which dashboards were imported and which
were not; a cancelled one stops before its next step and keeps the same report, the snapshot
included, so it can be rolled back. A rollback imports the snapshot back the same way and
deletes what the deploy created.

Workflows run outside the app's event loop (see sstools/tasks), so each step opens its own
Superset clients (``with_superset``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sstools.domain.deploy import bundles
from sstools.domain.deploy._importing import ImportSet, import_sparse, import_whole
from sstools.domain.deploy._target import import_bundle
from sstools.domain.deploy.orders import (
    ApplyOrder,
    OrderedDashboard,
    RollbackOrder,
    changed_uuids,
    order_of,
    ordered_dashboards,
)
from sstools.domain.deploy.snapshots import take_snapshot
from sstools.git_store import GitStore
from sstools.superset import SupersetClient, SupersetPool
from sstools.tasks import (
    CANCELLATION,
    PASS_THROUGH,
    TaskFailed,
    context,
    error_words,
    failing_as,
    report_on_cancel,
    step_output,
    task_step,
    task_workflow,
    with_superset,
)
from sstools.texts import deploy as texts

__all__ = [
    "ApplyOrder",
    "OrderedDashboard",
    "RollbackOrder",
    "apply_plan",
    "changed_uuids",
    "order_of",
    "ordered_dashboards",
    "rollback",
]


def _git() -> GitStore:
    return GitStore.from_settings(context().settings)


def _check_databases(env_id: str, database_ids: list[int]) -> None:
    async def work(pool: SupersetPool) -> None:
        client = pool.client(env_id)
        for database_id in database_ids:
            # Listing schemas opens a connection to the database itself, not only to Superset.
            await client.list_schemas(database_id)

    with_superset(work)


def _snapshot(
    task_id: str, env_id: str, uuids: list[str], ids: list[int] | None = None
) -> dict[str, Any]:
    async def work(pool: SupersetPool) -> dict[str, Any]:
        return await take_snapshot(pool.client(env_id), _git(), task_id, uuids, ids)

    return with_superset(work)


def _import(env_id: str, bundle: str, kinds: list[str] | None = None) -> None:
    """An older order's step: one dashboard's own bundle."""
    files = bundles.load(context().settings.bundle_dir, bundle)

    async def work(pool: SupersetPool) -> None:
        await import_bundle(pool.client(env_id), files, kinds)

    with_superset(work)


def _import_sparse(env_id: str, imports: dict[str, Any]) -> bool:
    """The assets import of the set; True when it imported the rest too (see ``_importing``)."""
    wanted = ImportSet.model_validate(imports)
    files = bundles.load(context().settings.bundle_dir, wanted.bundle)

    async def work(pool: SupersetPool) -> bool:
        return await import_sparse(pool.client(env_id), files, wanted)

    return with_superset(work)


def _import_whole(env_id: str, imports: dict[str, Any]) -> None:
    wanted = ImportSet.model_validate(imports)
    files = bundles.load(context().settings.bundle_dir, wanted.bundle)

    async def work(pool: SupersetPool) -> None:
        await import_whole(pool.client(env_id), files, wanted)

    with_superset(work)


@dataclass(frozen=True)
class _Stage:
    """One import step: what it is called, the dashboards it lands, what runs."""

    name: str
    titles: list[str]
    run: Callable[..., Any]
    args: tuple[Any, ...]


def _stages(
    env_id: str,
    imports: ImportSet | None,
    dashboards: list[OrderedDashboard],
    *,
    restoring: bool = False,
) -> list[_Stage]:
    """The import steps of an order: the set's one or two, or an older order's one a dashboard."""
    if imports is None:  # nothing to import, or an order of an older sstools
        older = texts.STEP_RESTORE if restoring else texts.STEP_IMPORT
        return [
            _Stage(
                older.format(title=one.title),
                [one.title],
                _import,
                (env_id, one.bundle, None if restoring else one.changed_kinds),
            )
            for one in dashboards
            if one.changed and one.bundle
        ]
    named = texts.step_restore if restoring else texts.step_import
    raw = imports.model_dump()
    stages = []
    if imports.sparse:
        titles = imports.sparse_titles
        stages.append(_Stage(named(titles), titles, _import_sparse, (env_id, raw)))
    if imports.whole:
        titles = imports.whole_titles
        stages.append(_Stage(named(titles), titles, _import_whole, (env_id, raw)))
    return stages


def _titles(stages: list[_Stage]) -> list[str]:
    return [title for stage in stages for title in stage.titles]


def _partial(imported: list[str], pending: list[_Stage], extra: dict[str, Any]) -> dict[str, Any]:
    return {**extra, "imported": imported, "not_imported": _titles(pending)}


def _snapshot_report(order: ApplyOrder, snapshot: dict[str, Any]) -> dict[str, Any]:
    return {
        **snapshot,
        "created_dashboards": order.created_dashboards,
        "created_charts": order.created_charts,
    }


@task_workflow
def apply_plan(task_id: str, raw_order: dict[str, Any]) -> dict[str, Any]:
    """Deploy or migration: connectivity, snapshot (prod), then the import of what changes."""
    order = ApplyOrder.model_validate(raw_order)
    stages = _stages(order.target_env_id, order.imports, order.dashboards)
    unchanged = [one.title for one in order.dashboards if not one.changed]
    total = 1 + int(order.snapshot) + len(stages)
    report: dict[str, Any] = {"target_env_id": order.target_env_id, "unchanged": unchanged}
    try:
        with failing_as(
            texts.TARGET_UNREACHABLE, _partial([], stages, report), env=order.target_env_id
        ):
            task_step(
                task_id,
                1,
                total,
                texts.STEP_CONNECTIVITY,
                _check_databases,
                order.target_env_id,
                order.database_ids,
            )
    except CANCELLATION:
        report_on_cancel(task_id, _partial([], stages, report))
        raise
    step = 1
    if order.snapshot:
        step += 1
        moving = [one.uuid for one in order.dashboards if one.changed]
        existing = [uuid for uuid in moving if uuid not in order.created_dashboards]
        try:
            with failing_as(texts.SNAPSHOT_FAILED, _partial([], stages, report)):
                snapshot = task_step(
                    task_id,
                    step,
                    total,
                    texts.STEP_SNAPSHOT,
                    _snapshot,
                    task_id,
                    order.target_env_id,
                    existing,
                    order.snapshot_ids,
                )
        except CANCELLATION as cancelled:
            taken, snapshot = step_output(cancelled)  # the branch exists: name it for rollback
            if taken:
                report["snapshot"] = _snapshot_report(order, snapshot)
            report_on_cancel(task_id, _partial([], stages, report))
            raise
        report["snapshot"] = _snapshot_report(order, snapshot)
    imported: list[str] = []
    for index, stage in enumerate(stages):
        step += 1
        failed = _partial(imported, stages[index:], report)
        try:
            with failing_as(texts.IMPORT_SET_FAILED, failed, titles=texts.quoted(stage.titles)):
                done_all = task_step(task_id, step, total, stage.name, stage.run, *stage.args)
        except CANCELLATION as cancelled:  # with the snapshot: a rollback undoes the imports
            landed, done_all = step_output(cancelled)  # cancelled while it ran, and it finished
            rest = stages[index + 1 :] if landed else stages[index:]
            done = [*imported, *stage.titles] if landed else imported
            if done_all is True:
                done, rest = done + _titles(rest), []
            report_on_cancel(task_id, _partial(done, rest, report))
            raise
        imported += stage.titles
        if done_all is True:  # the first import took everything (see _importing)
            imported += _titles(stages[index + 1 :])
            break
    return _partial(imported, [], report)


def _delete(env_id: str, resource: str, uuids: list[str]) -> list[str]:
    """Delete the target's objects with these UUIDs (already gone: nothing to do)."""

    async def work(pool: SupersetPool) -> list[str]:
        client: SupersetClient = pool.client(env_id)
        if not uuids:
            return []
        rows = await client.list_by_uuid(resource, uuids, columns=["id", "uuid"])
        there = {str(row["uuid"]): int(row["id"]) for row in rows}
        deleted = []
        for uuid in uuids:
            if uuid in there:
                await client.delete(f"/api/v1/{resource}/{there[uuid]}")
                deleted.append(uuid)
        return deleted

    return with_superset(work)


@task_workflow
def rollback(task_id: str, raw_order: dict[str, Any]) -> dict[str, Any]:
    """Bring the target back to the snapshot a deploy took, and delete what it created.

    The files were read from the pinned snapshot commit when the plan was approved: a snapshot
    branch moved since is never read here.
    """
    order = RollbackOrder.model_validate(raw_order)
    stages = _stages(order.target_env_id, order.imports, order.restore, restoring=True)
    total = len(stages) + 2
    restored: list[str] = []
    step = 0
    try:
        for index, stage in enumerate(stages):
            step += 1
            done_all = task_step(task_id, step, total, stage.name, stage.run, *stage.args)
            restored += stage.titles
            if done_all is True:  # the first import took everything (see _importing)
                restored += _titles(stages[index + 1 :])
                break
        deleted_dashboards = task_step(
            task_id,
            step + 1,
            total,
            texts.STEP_DELETE_CREATED,
            _delete,
            order.target_env_id,
            "dashboard",
            order.delete_dashboards,
        )
        deleted_charts = task_step(
            task_id,
            step + 2,
            total,
            texts.STEP_DELETE_CREATED,
            _delete,
            order.target_env_id,
            "chart",
            order.delete_charts,
        )
    except PASS_THROUGH:
        raise
    except Exception as exc:
        raise TaskFailed(
            texts.ROLLBACK_FAILED.format(error=error_words(exc)),
            {
                "restored": restored,
                "not_restored": [title for title in _titles(stages) if title not in restored],
                "snapshot_commit": order.snapshot_commit,
            },
        ) from exc
    deleted = [*deleted_dashboards, *deleted_charts]
    return {
        # Titles, as a deploy's result names what it imported; what it deleted by uuid too.
        "restored": restored,
        "unchanged": [one.title for one in order.restore if not one.changed],
        "deleted": [order.deleted_names[uuid] for uuid in deleted if uuid in order.deleted_names],
        "deleted_dashboards": deleted_dashboards,
        "deleted_charts": deleted_charts,
        "snapshot_branch": order.snapshot_branch,
        "snapshot_commit": order.snapshot_commit,
    }
