"""Applying a plan, and undoing it: the durable workflows behind deploy, migration and rollback.

A deploy runs as a task (:mod:`sstools.tasks`): check the target's databases answer, snapshot
what it will overwrite (for a stage that keeps snapshots), then import one dashboard per step.
Every step is safe to run again after a restart: an import overwrites, a snapshot of the same
files commits nothing new. A step that fails ends the task ``failed`` with which dashboards were
imported and which were not; a cancelled one stops before its next step and keeps the same
report, the snapshot included, so it can be rolled back. A rollback deploys the snapshot back
and deletes what the deploy created.

Workflows run outside the app's event loop (see sstools/tasks), so each step opens its own
Superset clients (``with_superset``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from sstools.domain.deploy import bundles
from sstools.domain.deploy._target import import_bundle
from sstools.domain.deploy.planner import PlannedDeploy
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


class OrderedDashboard(BaseModel):
    uuid: str
    title: str
    changed: bool  # False: the plan found nothing to change, so it is not imported at all
    # The kind folders of the objects it changes: an unchanged dataset or chart is not sent to
    # its own import (an order saved before this was known imports all three, as it did).
    changed_kinds: list[str] = ["datasets", "charts", "dashboards"]
    # The SHA-256 its files are saved under (sstools.domain.deploy.bundles): a task's input is
    # stored by the task engine, so it names the files and never holds them.
    bundle: str


class ApplyOrder(BaseModel):
    """What a deploy task applies: exactly the plan the person approved (its digest was checked)."""

    target_env_id: str
    snapshot: bool
    dashboards: list[OrderedDashboard]
    database_ids: list[int]  # the target's connections the datasets will use
    created_dashboards: list[str]  # uuids the plan creates: a rollback deletes them
    created_charts: list[str]


class RollbackOrder(BaseModel):
    """What a rollback task applies: exactly the rollback plan the person approved."""

    target_env_id: str
    deploy_task_id: str
    snapshot_branch: str
    snapshot_commit: str | None  # the pinned commit the files were read from (verified)
    restore: list[OrderedDashboard]  # the snapshot's files; unchanged ones are not imported
    delete_dashboards: list[str]
    delete_charts: list[str]
    # uuid -> name of what it deletes, for the words of its result (an order saved before
    # names were kept has none: its result counts them instead).
    deleted_names: dict[str, str] = {}


def changed_uuids(planned: PlannedDeploy) -> set[str]:
    return {change.uuid for change in planned.plan.objects if change.action != "unchanged"}


def ordered_dashboards(
    bundle_dir: Path,
    planned: Mapping[str, dict[str, bytes]],
    titles: Mapping[str, str],
    changed: set[str],
) -> list[OrderedDashboard]:
    """Each dashboard's files (``planned``: uuid -> files) saved in ``bundle_dir``, named by key."""
    keys = bundles.save(bundle_dir, planned.values())
    ordered = []
    for (uuid, files), key in zip(planned.items(), keys, strict=True):
        kinds = sorted({path.split("/", 1)[0] for path in files if _uuid_of(path) in changed})
        ordered.append(
            OrderedDashboard(
                uuid=uuid,
                title=titles.get(uuid, uuid),
                changed=bool(kinds),
                changed_kinds=kinds,
                bundle=key,
            )
        )
    return ordered


def order_of(planned: PlannedDeploy, *, snapshot: bool, bundle_dir: Path) -> ApplyOrder:
    """The task's order, the files it imports saved in ``bundle_dir`` (blocking I/O)."""
    plan = planned.plan
    titles = {change.uuid: change.name for change in plan.dashboards}
    created = [change for change in plan.objects if change.action == "create"]
    return ApplyOrder(
        target_env_id=plan.target_env_id,
        snapshot=snapshot,
        dashboards=ordered_dashboards(bundle_dir, planned.bundles, titles, changed_uuids(planned)),
        database_ids=sorted(
            {mapping.target_id for mapping in plan.databases if mapping.target_id is not None}
        ),
        created_dashboards=[change.uuid for change in created if change.kind == "dashboard"],
        created_charts=[change.uuid for change in created if change.kind == "chart"],
    )


def _uuid_of(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".yaml")


def _git() -> GitStore:
    return GitStore.from_settings(context().settings)


def _check_databases(env_id: str, database_ids: list[int]) -> None:
    async def work(pool: SupersetPool) -> None:
        client = pool.client(env_id)
        for database_id in database_ids:
            # Listing schemas opens a connection to the database itself, not only to Superset.
            await client.list_schemas(database_id)

    with_superset(work)


def _snapshot(task_id: str, env_id: str, uuids: list[str]) -> dict[str, Any]:
    async def work(pool: SupersetPool) -> dict[str, Any]:
        return await take_snapshot(pool.client(env_id), _git(), task_id, uuids)

    return with_superset(work)


def _import(env_id: str, bundle: str, kinds: list[str] | None = None) -> None:
    files = bundles.load(context().settings.bundle_dir, bundle)

    async def work(pool: SupersetPool) -> None:
        await import_bundle(pool.client(env_id), files, kinds)

    with_superset(work)


def _partial(
    imported: list[str], pending: list[OrderedDashboard], extra: dict[str, Any]
) -> dict[str, Any]:
    return {**extra, "imported": imported, "not_imported": [one.title for one in pending]}


def _snapshot_report(order: ApplyOrder, snapshot: dict[str, Any]) -> dict[str, Any]:
    return {
        **snapshot,
        "created_dashboards": order.created_dashboards,
        "created_charts": order.created_charts,
    }


@task_workflow
def apply_plan(task_id: str, raw_order: dict[str, Any]) -> dict[str, Any]:
    """Deploy or migration: connectivity, snapshot (prod), then one import per dashboard."""
    order = ApplyOrder.model_validate(raw_order)
    to_import = [one for one in order.dashboards if one.changed]
    unchanged = [one.title for one in order.dashboards if not one.changed]
    total = 1 + int(order.snapshot) + len(to_import)
    report: dict[str, Any] = {"target_env_id": order.target_env_id, "unchanged": unchanged}
    try:
        with failing_as(
            texts.TARGET_UNREACHABLE, _partial([], to_import, report), env=order.target_env_id
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
        report_on_cancel(task_id, _partial([], to_import, report))
        raise
    step = 1
    if order.snapshot:
        step += 1
        existing = [one.uuid for one in to_import if one.uuid not in order.created_dashboards]
        try:
            with failing_as(texts.SNAPSHOT_FAILED, _partial([], to_import, report)):
                snapshot = task_step(
                    task_id,
                    step,
                    total,
                    texts.STEP_SNAPSHOT,
                    _snapshot,
                    task_id,
                    order.target_env_id,
                    existing,
                )
        except CANCELLATION as cancelled:
            taken, snapshot = step_output(cancelled)  # the branch exists: name it for rollback
            if taken:
                report["snapshot"] = _snapshot_report(order, snapshot)
            report_on_cancel(task_id, _partial([], to_import, report))
            raise
        report["snapshot"] = _snapshot_report(order, snapshot)
    imported: list[str] = []
    for index, dashboard in enumerate(to_import):
        step += 1
        name = texts.STEP_IMPORT.format(title=dashboard.title)
        failed = _partial(imported, to_import[index:], report)
        try:
            with failing_as(texts.IMPORT_FAILED, failed, title=dashboard.title):
                task_step(
                    task_id,
                    step,
                    total,
                    name,
                    _import,
                    order.target_env_id,
                    dashboard.bundle,
                    dashboard.changed_kinds,
                )
        except CANCELLATION as cancelled:  # with the snapshot: a rollback undoes the imports
            landed = step_output(cancelled)[0]  # cancelled while it ran, and it finished
            done = [*imported, dashboard.title] if landed else imported
            report_on_cancel(task_id, _partial(done, to_import[index + int(landed) :], report))
            raise
        imported.append(dashboard.title)
    return _partial(imported, [], report)


def _delete(env_id: str, resource: str, uuids: list[str]) -> list[str]:
    """Delete the target's objects with these UUIDs (already gone: nothing to do)."""

    async def work(pool: SupersetPool) -> list[str]:
        client: SupersetClient = pool.client(env_id)
        deleted = []
        for uuid in uuids:
            query = {"columns": ["id"], "filters": [{"col": "uuid", "opr": "eq", "value": uuid}]}
            rows = (await client.get_json(f"/api/v1/{resource}/", query=query)).get("result")
            for row in rows or []:
                await client.delete(f"/api/v1/{resource}/{row['id']}")
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
    to_restore = [one for one in order.restore if one.changed]
    total = len(to_restore) + 2
    restored: list[str] = []
    step = 0
    try:
        for dashboard in to_restore:
            step += 1
            task_step(
                task_id,
                step,
                total,
                texts.STEP_RESTORE.format(title=dashboard.title),
                _import,
                order.target_env_id,
                dashboard.bundle,
            )
            restored.append(dashboard.title)
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
                "not_restored": [one.title for one in to_restore[len(restored) :]],
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
