"""Snapshots: the target's current version of what a deploy will overwrite, kept in git first.

A snapshot is the branch ``snapshots/<task id>``: main plus the target's exported files of the
dashboards the deploy touches (with their charts, datasets and databases, secrets stripped).
Only this step writes such a branch (a person's commit or new branch there is refused), and the
task's result pins the commit it made: a rollback reads exactly that commit, verified against
its id, never whatever the branch points at by then.
"""

from __future__ import annotations

import contextlib
from typing import Any

from sstools.domain.deploy._target import export_dashboards, export_target
from sstools.git_store import DEFAULT_BRANCH, SNAPSHOT_PREFIX, BranchExists, GitStore
from sstools.superset import SupersetClient, SupersetNotFound
from sstools.texts import deploy as texts

SNAPSHOT_AUTHOR = "sstools"

__all__ = ["SNAPSHOT_AUTHOR", "SNAPSHOT_PREFIX", "snapshot_branch", "take_snapshot"]


def snapshot_branch(task_id: str) -> str:
    return f"{SNAPSHOT_PREFIX}{task_id}"


async def _current(
    superset: SupersetClient, dashboard_uuids: list[str], ids: list[int] | None
) -> dict[str, bytes]:
    """The target's files of those dashboards: one export by the ids the plan saw them under,
    or, when one is gone since (or an older order has no ids), found by UUID first."""
    if not dashboard_uuids:
        return {}
    if ids:
        with contextlib.suppress(SupersetNotFound):
            files = await export_dashboards(superset, ids)
            held = {path for path in files if path.startswith("dashboards/")}
            if held == {f"dashboards/{uuid}.yaml" for uuid in dashboard_uuids}:
                return files
    return await export_target(superset, dashboard_uuids)


async def take_snapshot(
    superset: SupersetClient,
    git: GitStore,
    task_id: str,
    dashboard_uuids: list[str],
    ids: list[int] | None = None,
) -> dict[str, Any]:
    """Export those of the dashboards the target has and commit them on the task's branch.

    ``ids``: the target's ids of those dashboards, as the plan saw them (see :func:`_current`).
    ``commit`` is the branch's head once the files are on it: the snapshot a rollback restores.
    Safe to run again (a restart mid-step): the branch exists, the same files commit nothing and
    the head is that first run's commit.
    """
    files = await _current(superset, dashboard_uuids, ids)
    branch = snapshot_branch(task_id)
    with contextlib.suppress(BranchExists):  # made by this step before a restart
        await git.create_branch(branch, DEFAULT_BRANCH, snapshot=True)
    made = None
    if files:
        made = await git.commit_files(
            branch,
            files,
            message=texts.SNAPSHOT_MESSAGE.format(env=superset.env.id, task=task_id),
            username=SNAPSHOT_AUTHOR,
        )
    # Nothing new to commit (a rerun, or main already equal): the head holds the files.
    pinned = made or await git.head(branch)
    held = sorted(path for path in files if path.startswith("dashboards/"))
    return {
        "branch": branch,
        "commit": pinned.id,
        "dashboards": [path.removeprefix("dashboards/").removesuffix(".yaml") for path in held],
        "files": len(files),
    }
