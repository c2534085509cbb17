"""Operations tools: environments, tasks, backups, git."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from sstools.agent.context import ObjectType
from sstools.agent.texts import tools as texts
from sstools.agent.tools.call import (
    CallScope,
    ToolArgumentError,
    ToolRequest,
    env_param,
    named_env,
    named_or_current_env,
    named_target,
)
from sstools.agent.tools.deploys import DryRunArgs, applied, plan_of, planned_write
from sstools.agent.tools.paths import EnvId, ObjectId, TaskId, api_path
from sstools.agent.tools.shaping import (
    commit,
    head,
    listed,
    pick,
    task_record,
    task_summary,
)
from sstools.agent.tools.spec import (
    DetailArgs,
    ToolArgs,
    ToolKind,
    assistant_tool,
    environment_read,
)
from sstools.auth.roles import Role
from sstools.ids import BACKUP_ID_PATTERN, BranchName

D, S, M = ObjectType.dashboard, ObjectType.dataset, ObjectType.migration


class NoArgs(ToolArgs):
    pass


@assistant_tool(kind=ToolKind.read, affinity=(S, M))
def list_environments(args: NoArgs, scope: CallScope) -> ToolRequest:
    """List the Superset environments.

    With their stage and whether they answer.
    """
    return ToolRequest(method="GET", path="/api/environments")


class TaskArgs(DetailArgs):
    task_id: TaskId = Field(description="From a tool that started a task")


@assistant_tool(kind=ToolKind.read, affinity=(S, M), follows_task=True, shape=task_record)
def get_task_status(args: TaskArgs, scope: CallScope) -> ToolRequest:
    """Status of a background task by its id.

    A deploy, migration, validation, backup.
    """
    return ToolRequest(method="GET", path=api_path("/api/tasks", args.task_id))


class TasksArgs(DetailArgs):
    env_id: EnvId | None = Field(default=None, description="Only tasks writing this environment")


def _tasks(payload: Any, args: DetailArgs) -> Any:
    """Each task's id, kind, objects, state and start; results are for get_task_status."""
    return head({}, "items", map(task_summary, payload))


def fleet_filter(env_id: str | None, scope: CallScope) -> dict[str, str | int] | None:
    """The query of a read across environments: only the one named, if any; on a dashboard's
    page, only that dashboard, by its id where the page shows it (a deploy history or a drift
    report scoped to it)."""
    query: dict[str, str | int] = {"env_id": env_id} if env_id else {}
    if scope.page_dashboard is not None and scope.env_id is not None:
        query |= {"dashboard_id": scope.page_dashboard, "dashboard_env_id": scope.env_id}
    return query or None


@assistant_tool(kind=ToolKind.read, affinity=(D, M), target_env=named_env, shape=_tasks)
def list_tasks(args: TasksArgs, scope: CallScope) -> ToolRequest:
    """Recent background tasks, who started them, and their status.

    On a dashboard's page: the tasks that wrote that dashboard, in any environment (its deploy
    history)."""
    return ToolRequest(method="GET", path="/api/tasks", params=fleet_filter(args.env_id, scope))


class BackupsArgs(ToolArgs):
    env_id: EnvId | None = Field(default=None, description="Defaults to the current one")


@assistant_tool(
    kind=ToolKind.write,
    min_role=Role.admin,
    needs_env=True,
    starts_task=True,
    target_env=named_or_current_env,
    shape=task_record,
)
def run_backup(args: BackupsArgs, scope: CallScope) -> ToolRequest:
    """Back up an environment into a verified archive.

    Every dashboard, chart, dataset and database, without passwords; returns a task id to follow
    with get_task_status."""
    # «сделай бэкап прода» asked on a dev page: prod's
    return ToolRequest(method="POST", path="/api/backups", json_body=env_param(scope, args.env_id))


def _backups(payload: Any, args: BackupsArgs) -> Any:
    """Each backup's id, when and by whom, what it holds; checksums stay on the server."""
    keys = ("id", "created_at", "created_by", "counts", "files", "bytes")
    return {
        "backups": [pick(item, *keys) for item in payload["backups"]],
        "unreadable": payload.get("unreadable") or [],
    }


@environment_read(target_env=named_or_current_env, shape=_backups)
def list_backups(args: BackupsArgs, scope: CallScope) -> ToolRequest:
    """Backups of the current environment."""
    return ToolRequest(method="GET", path="/api/backups", params=env_param(scope, args.env_id))


class RestoreArgs(DryRunArgs):
    backup_id: str = Field(
        max_length=100,
        pattern=BACKUP_ID_PATTERN,
        description="From list_backups",
    )
    target_env_id: EnvId = Field(description="Environment to restore it into")


def _restore_path(args: RestoreArgs) -> str:
    return api_path("/api/backups", args.backup_id, "restore")


def _restore_preview(args: RestoreArgs, scope: CallScope) -> ToolRequest:
    return plan_of(_restore_path(args), {"target_env_id": args.target_env_id})


@planned_write(
    min_role=Role.admin,
    affinity=(M,),
    preview=_restore_preview,
    target_env=named_target,
    editable=("target_env_id",),
)
def restore_backup(args: RestoreArgs, scope: CallScope) -> ToolRequest:
    """Restore a backup (from list_backups) into an environment.

    Its dashboards, charts and datasets are imported over the environment's, databases are never
    changed; returns a task id to follow with get_task_status."""
    if scope.approved_plan is None:  # the card showed no plan: never apply one nobody saw
        raise ToolArgumentError(texts.NO_RESTORE_PLAN)
    return applied(_restore_path(args), {"target_env_id": args.target_env_id}, scope)


class BranchArgs(ToolArgs):
    name: BranchName = Field(description="A git branch name, e.g. feature/sales-report")


def _branch(payload: Any, args: Any) -> Any:
    """A branch: its name, whether it is the default, and its last commit."""
    return pick(payload, "name", "default") | {"commit": commit(payload.get("commit"))}


@assistant_tool(
    kind=ToolKind.write, min_role=Role.engineer, affinity=(D,), shape=_branch, editable=("name",)
)
def create_branch(args: BranchArgs, scope: CallScope) -> ToolRequest:
    """Create a git branch in the repository of dashboard exports."""
    return ToolRequest(method="POST", path="/api/git/branches", json_body={"name": args.name})


class CommitArgs(ToolArgs):
    message: str = Field(min_length=1, max_length=500)
    dashboard_ids: list[ObjectId] = Field(default_factory=list, max_length=100)


def _committed(payload: Any, args: CommitArgs) -> Any:
    """Whether a commit was made, where, its id, the dashboards and the files it changed."""
    out = pick(payload, "created", "branch", "dashboards", "pushed", "push_error")
    made = commit(payload.get("commit"))
    if made:
        out["commit"] = pick(made, "id", "time")
    files = [pick(item, "path", "change") for item in listed(payload.get("files"))]
    return head(out, "files", files)


@assistant_tool(
    kind=ToolKind.write,
    min_role=Role.engineer,
    affinity=(D,),
    shape=_committed,
    editable=("message", "dashboard_ids"),
)
def commit_changes(args: CommitArgs, scope: CallScope) -> ToolRequest:
    """Export dashboards and commit them to the git repository."""
    ids = scope.dashboards(args.dashboard_ids)
    return ToolRequest(
        method="POST",
        path="/api/git/commits",
        json_body={"message": args.message, "dashboard_ids": ids, "env_id": scope.env_id},
    )


_GIT_ORDER = {"modified": 0, "untracked": 1, "clean": 2}


def _git_status(payload: Any, args: DetailArgs) -> Any:
    """The branch and its head; dashboards that differ from it first, each with its status."""
    out: dict[str, Any] = pick(payload, "branch", "env_id") | {"head": commit(payload["head"])}
    dashboards = [item for item in listed(payload.get("dashboards")) if isinstance(item, dict)]
    dashboards.sort(key=lambda item: _GIT_ORDER.get(str(item.get("status")), 0))
    statuses: dict[str, int] = {}
    for item in dashboards:
        statuses[str(item.get("status"))] = statuses.get(str(item.get("status")), 0) + 1
    if dashboards:
        out["statuses"] = statuses

    def brief(item: dict[str, Any]) -> dict[str, Any]:
        made = pick(item, "dashboard_id", "title", "status")
        if item.get("changed_files"):
            made["changed_files"] = item["changed_files"]
        if last := commit(item.get("last_commit")):
            made["last_commit"] = pick(last, "id", "time", "author")
        return made

    return head(out, "dashboards", map(brief, dashboards), shown=30)


@assistant_tool(kind=ToolKind.read, affinity=(D,), shape=_git_status)
def get_git_status(args: DetailArgs, scope: CallScope) -> ToolRequest:
    """What changed in the dashboard-exports repository since the last commit."""
    # In an environment: its dashboards (this one, on a dashboard page) against the branch.
    params: dict[str, str | int] = {}
    if scope.env_id is not None:
        params["env_id"] = scope.env_id
        if scope.page_dashboard is not None:
            params["dashboard_id"] = scope.page_dashboard
    return ToolRequest(method="GET", path="/api/git/status", params=params)


def _branches(payload: Any, args: DetailArgs) -> Any:
    branches = [_branch(item, args) for item in payload]
    branches.sort(key=lambda item: not item.get("default"))  # the default branch first
    return branches if len(branches) <= 30 else head({}, "items", branches, shown=30)


@assistant_tool(kind=ToolKind.read, shape=_branches)
def list_branches(args: DetailArgs, scope: CallScope) -> ToolRequest:
    """Branches of the dashboard-exports repository."""
    return ToolRequest(method="GET", path="/api/git/branches")


@assistant_tool(kind=ToolKind.read, always=True, local=True)
def show_capabilities(args: NoArgs, scope: CallScope) -> ToolRequest:
    """List what the agent can do here and now.

    And why other tools are hidden.
    """
    raise NotImplementedError  # answered by the graph from the selection, not over HTTP


class DriftArgs(ToolArgs):
    env_id: EnvId | None = Field(
        default=None, description="One environment; every one when left out"
    )


DRIFTED_SHOWN = 20


def _drift(payload: Any, args: DriftArgs) -> Any:
    """Per environment: its source, the counts by state and the drifted dashboards (the first
    20), each with its id there and what it differs from; in-sync ones only counted."""
    keys = ("title", "dashboard_id", "state", "in_git", "differs_from_git", "differs_from_source")
    environments = []
    for env in listed(payload.get("environments")):
        drifted = [
            pick(one, *keys)
            for one in listed(env.get("dashboards"))
            if isinstance(one, dict) and one.get("state") != "in_sync"
        ]
        shown = pick(env, "env_id", "stage", "source_env_id", "reachable", "error", "counts")
        environments.append(head(shown, "drifted", drifted, shown=DRIFTED_SHOWN))
    return pick(payload, "checked_at") | {"environments": environments}


@assistant_tool(kind=ToolKind.read, affinity=(D, M), shape=_drift)
def get_drift(args: DriftArgs, scope: CallScope) -> ToolRequest:
    """Which dashboards of an environment differ from git main or from its upstream stage.

    Per dashboard: edited directly there, behind its source, or missing. Two ways to reconcile:
    adopt into git (commit_changes) or put it back as in git (deploy_dashboard with git_ref).
    """
    # On a dashboard's page: that dashboard, everywhere.
    return ToolRequest(method="GET", path="/api/drift", params=fleet_filter(args.env_id, scope))
