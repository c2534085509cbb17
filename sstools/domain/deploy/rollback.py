"""The plan of a rollback: what bringing a target back to a deploy's snapshot would change.

The snapshot is read from the commit the deploy's task pinned in its result
(``result.snapshot.commit``), each object checked against its id: a snapshot branch that moved
since (it cannot through the API; it can by hand in the repository) changes nothing here. The
snapshotted dashboards are planned like a deploy from that commit (create/update/unchanged,
field by field); the dashboards and charts the deploy created and the target still has plan
``delete``. The digest covers the restore plan (files and the target's current ones), the
commit and each object to delete with its ``changed_on``: it changes when the target does.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import anyio.to_thread
from pydantic import BaseModel, ConfigDict

from sstools.domain.deploy import _target
from sstools.domain.deploy._releases import fitted
from sstools.domain.deploy._sources import Sources, map_sources, read_sources
from sstools.domain.deploy.errors import DeployError, UnknownDashboard
from sstools.domain.deploy.models import DeploySource, ObjectChange, Plan
from sstools.domain.deploy.orders import RollbackOrder, ordered_dashboards
from sstools.domain.deploy.planner import build_plan
from sstools.environments import Stage
from sstools.git_store import CorruptCommit, GitStore, UnknownCommit
from sstools.superset import SupersetClient
from sstools.texts import deploy as texts


class SnapshotUnusable(DeployError):
    """The snapshot cannot be trusted or read: nothing is planned, nothing written."""

    def __init__(self, task_id: str, reason: str) -> None:
        super().__init__(texts.ROLLBACK_SNAPSHOT_UNUSABLE.format(task=task_id, reason=reason))


class SnapshotRecord(BaseModel):
    """``result.snapshot`` of a deploy or migration task (see apply.py)."""

    model_config = ConfigDict(extra="ignore")

    branch: str
    commit: str | None = None  # None: a task recorded before snapshots were pinned
    dashboards: list[str] = []
    created_dashboards: list[str] = []
    created_charts: list[str] = []


class RollbackPlan(Plan):
    """A deploy plan from the snapshot commit, plus the objects to delete (action ``delete``)."""

    deploy_task_id: str
    deployed_by: str  # who ran the deploy being undone
    snapshot_branch: str
    snapshot_commit: str | None


@dataclass(frozen=True)
class PlannedRollback:
    plan: RollbackPlan
    # dashboard uuid -> the snapshot's files to import for it (mapped onto the target)
    bundles: dict[str, dict[str, bytes]]
    delete_dashboards: list[str]
    delete_charts: list[str]
    found: _target.Inventory | None = None  # the target as the plan saw it


def _read_snapshot(git: GitStore, task_id: str, snapshot: SnapshotRecord) -> Sources:
    if not snapshot.dashboards:
        return Sources({})
    commit = snapshot.commit
    if commit is None:
        raise SnapshotUnusable(task_id, texts.ROLLBACK_UNPINNED)

    def read(paths: list[str]) -> dict[str, bytes]:
        return git.repository.read_commit(commit, paths)[1]

    where = texts.ROLLBACK_WHERE.format(commit=commit[:12])
    try:
        return read_sources(read, snapshot.dashboards, where=where)
    except (UnknownCommit, CorruptCommit, UnknownDashboard) as exc:
        raise SnapshotUnusable(task_id, str(exc)) from exc


def _deletions(found: _target.Inventory, snapshot: SnapshotRecord) -> list[ObjectChange]:
    """What the deploy created that the target still has: the rollback deletes it."""
    changes = []
    for kind, folder, uuids in (
        ("dashboard", "dashboards", snapshot.created_dashboards),
        ("chart", "charts", snapshot.created_charts),
    ):
        for uuid in sorted(uuids):
            row = found.get(folder, uuid)
            if row is not None:
                changes.append(
                    ObjectChange(
                        kind=kind,
                        uuid=uuid,
                        name=row.name,
                        action="delete",
                        fields=[],
                        target_id=row.id,
                        target_changed_on=row.changed_on,
                    )
                )
    return changes


def _digest(restore_digest: str, commit: str | None, deletions: list[ObjectChange]) -> str:
    material = {
        "restore": restore_digest,
        "commit": commit,
        "delete": [change.model_dump(mode="json") for change in deletions],
    }
    text = json.dumps(material, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


async def plan_rollback(
    target: SupersetClient,
    git: GitStore,
    *,
    deploy_task_id: str,
    deployed_by: str,
    snapshot: SnapshotRecord,
    target_stage: Stage,
) -> PlannedRollback:
    """Plan bringing ``target`` back to the deploy's pinned snapshot (nothing is written).

    Raises:
        SnapshotUnusable: no pinned commit, or the commit is missing, altered or lacks a
            snapshotted dashboard.
        SupersetError: the target did not answer.
    """
    sources = await anyio.to_thread.run_sync(_read_snapshot, git, deploy_task_id, snapshot)
    found = await _target.inventory(target)
    release = await target.release()  # the snapshot is the target's own, unless it moved since
    sources, translated = fitted(sources, source=None, target=release, target_env_id=target.env.id)
    mapped = map_sources(sources, found)
    files = await _target.target_files(target, found, mapped.wanted())
    restore = build_plan(
        mapped,
        source=DeploySource(git_ref=snapshot.branch),
        target_env_id=target.env.id,
        target_stage=target_stage,
        found=found,
        target_files=files,
        releases=(None, release),
        translated=translated,
    ).plan
    deletions = _deletions(found, snapshot)
    deleted_dashboards = [change for change in deletions if change.kind == "dashboard"]
    summary = texts.rollback_summary(
        task_id=deploy_task_id,
        deployed_by=deployed_by,
        restore_summary=restore.summary,
        restores=restore.dashboards_changed,
        deleted_dashboards=len(deleted_dashboards),
        deleted_charts=len(deletions) - len(deleted_dashboards),
    )
    plan = RollbackPlan.model_validate(
        {
            **restore.model_dump(),
            "dashboards": [*restore.dashboards, *deleted_dashboards],
            "objects": [*deletions, *restore.objects],
            "dashboards_changed": restore.dashboards_changed + len(deleted_dashboards),
            "summary": summary,
            "digest": _digest(restore.digest, snapshot.commit, deletions),
            "deploy_task_id": deploy_task_id,
            "deployed_by": deployed_by,
            "snapshot_branch": snapshot.branch,
            "snapshot_commit": snapshot.commit,
        }
    )
    bundles = {dashboard.uuid: dashboard.files() for dashboard in mapped.dashboards}
    return PlannedRollback(
        plan=plan,
        bundles=bundles,
        delete_dashboards=[change.uuid for change in deleted_dashboards],
        delete_charts=[change.uuid for change in deletions if change.kind == "chart"],
        found=found,
    )


def rollback_order(planned: PlannedRollback, bundle_dir: Path) -> RollbackOrder:
    """The task's order: the approved plan's files saved in ``bundle_dir`` (blocking I/O), which
    of them to import, what to delete."""
    plan = planned.plan
    changed = {one.uuid for one in plan.objects if one.action in ("create", "update")}
    titles = {one.uuid: one.name for one in plan.dashboards}
    restore, imports = ordered_dashboards(
        bundle_dir, planned.bundles, titles, changed, planned.found
    )
    return RollbackOrder(
        target_env_id=plan.target_env_id,
        deploy_task_id=plan.deploy_task_id,
        snapshot_branch=plan.snapshot_branch,
        snapshot_commit=plan.snapshot_commit,
        restore=restore,
        imports=imports,
        delete_dashboards=planned.delete_dashboards,
        delete_charts=planned.delete_charts,
        deleted_names={one.uuid: one.name for one in plan.objects if one.action == "delete"},
    )
