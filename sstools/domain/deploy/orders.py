"""What a deploy or rollback task is told to do: exactly the plan a person approved.

A durable task's input is stored by the task engine, so an order names the files it imports by
the SHA-256 they are saved under (:mod:`sstools.domain.deploy.bundles`) and never holds them.
Everything a task imports is one bundle, imported in as few calls as Superset takes
(:mod:`sstools.domain.deploy._importing`). An order saved by an older sstools (each dashboard's
files a bundle of its own) still runs as it did.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel

from sstools.domain.deploy import bundles
from sstools.domain.deploy._bundle import uuid_of
from sstools.domain.deploy._importing import ImportSet, split_imports
from sstools.domain.deploy._target import Inventory
from sstools.domain.deploy.planner import PlannedDeploy


class OrderedDashboard(BaseModel):
    uuid: str
    title: str
    changed: bool  # False: the plan found nothing to change, so it is not imported at all
    # The kind folders of the objects it changes (an order of an older sstools imports only
    # these of its bundle; one older still, all three).
    changed_kinds: list[str] = ["datasets", "charts", "dashboards"]
    # An older sstools' order: the key of this dashboard's own files, imported on their own.
    bundle: str | None = None


class ApplyOrder(BaseModel):
    """What a deploy task applies: exactly the plan the person approved (its digest was checked)."""

    target_env_id: str
    snapshot: bool
    dashboards: list[OrderedDashboard]
    database_ids: list[int]  # the target's connections the datasets will use
    created_dashboards: list[str]  # uuids the plan creates: a rollback deletes them
    created_charts: list[str]
    imports: ImportSet | None = None  # None: nothing to import (or an older order)
    # The target's ids of the dashboards the snapshot keeps (None: an older order, found by UUID)
    snapshot_ids: list[int] | None = None


class RollbackOrder(BaseModel):
    """What a rollback task applies: exactly the rollback plan the person approved."""

    target_env_id: str
    deploy_task_id: str
    snapshot_branch: str
    snapshot_commit: str | None  # the pinned commit the files were read from (verified)
    restore: list[OrderedDashboard]  # the snapshot's dashboards; unchanged ones not imported
    delete_dashboards: list[str]
    delete_charts: list[str]
    # uuid -> name of what it deletes, for the words of its result (an order saved before
    # names were kept has none: its result counts them instead).
    deleted_names: dict[str, str] = {}
    imports: ImportSet | None = None


def changed_uuids(planned: PlannedDeploy) -> set[str]:
    return {change.uuid for change in planned.plan.objects if change.action != "unchanged"}


def ordered_dashboards(
    bundle_dir: Path,
    planned: Mapping[str, Mapping[str, bytes]],
    titles: Mapping[str, str],
    changed: set[str],
    found: Inventory | None = None,
) -> tuple[list[OrderedDashboard], ImportSet | None]:
    """Each dashboard (``planned``: uuid -> its files) with what it changes, and the one import
    of them all, its files saved in ``bundle_dir`` (blocking I/O; None: nothing changes).

    ``found``: the target's objects as the plan saw them (None: as if it had none).
    """
    ordered = []
    for uuid, files in planned.items():
        kinds = sorted({path.split("/", 1)[0] for path in files if uuid_of(path) in changed})
        ordered.append(
            OrderedDashboard(
                uuid=uuid, title=titles.get(uuid, uuid), changed=bool(kinds), changed_kinds=kinds
            )
        )
    files, imports = split_imports(planned, titles, changed, found or Inventory({}))
    if not files:
        return ordered, None
    (key,) = bundles.save(bundle_dir, [files])
    return ordered, imports.model_copy(update={"bundle": key})


def order_of(planned: PlannedDeploy, *, snapshot: bool, bundle_dir: Path) -> ApplyOrder:
    """The task's order, the files it imports saved in ``bundle_dir`` (blocking I/O)."""
    plan = planned.plan
    titles = {change.uuid: change.name for change in plan.dashboards}
    created = [change for change in plan.objects if change.action == "create"]
    dashboards, imports = ordered_dashboards(
        bundle_dir, planned.bundles, titles, changed_uuids(planned), planned.found
    )
    moving = {one.uuid for one in dashboards if one.changed}
    return ApplyOrder(
        target_env_id=plan.target_env_id,
        snapshot=snapshot,
        dashboards=dashboards,
        database_ids=sorted(
            {mapping.target_id for mapping in plan.databases if mapping.target_id is not None}
        ),
        created_dashboards=[change.uuid for change in created if change.kind == "dashboard"],
        created_charts=[change.uuid for change in created if change.kind == "chart"],
        imports=imports,
        snapshot_ids=sorted(
            change.target_id
            for change in plan.dashboards
            if change.uuid in moving and change.target_id is not None
        ),
    )
