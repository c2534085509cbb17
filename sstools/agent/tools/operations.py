"""Operations tools: environments, tasks, backups, git."""

from __future__ import annotations

from pydantic import Field

from sstools.agent.context import ObjectType
from sstools.agent.tools.paths import ObjectId, TaskId, api_path
from sstools.agent.tools.spec import (
    CallScope,
    ToolArgs,
    ToolArgumentError,
    ToolKind,
    ToolRequest,
    assistant_tool,
    env_param,
)
from sstools.auth.roles import Role
from sstools.domain.backups.archive import BACKUP_ID_PATTERN
from sstools.domain.git_store.names import BranchName
from sstools.environments import ENV_ID_PATTERN

D, S, M = ObjectType.dashboard, ObjectType.dataset, ObjectType.migration


class NoArgs(ToolArgs):
    pass


@assistant_tool(
    title="Список окружений",
    kind=ToolKind.read,
    affinity=(S, M),
    keywords=("окружения", "окружение", "стенды", "environments", "prod", "staging"),
)
def list_environments(args: NoArgs, scope: CallScope) -> ToolRequest:
    """List the Superset environments with their stage and whether they answer."""
    return ToolRequest(method="GET", path="/api/environments")


class TaskArgs(ToolArgs):
    task_id: TaskId = Field(description="The id a task-starting tool returned")


@assistant_tool(
    title="Статус задачи",
    kind=ToolKind.read,
    affinity=(S, M),
    keywords=("задача", "статус задачи", "готово", "task"),
)
def get_task_status(args: TaskArgs, scope: CallScope) -> ToolRequest:
    """Status of a background task (deploy, migration, validation, backup) by its id."""
    return ToolRequest(method="GET", path=api_path("/api/tasks", args.task_id))


@assistant_tool(
    title="Список задач",
    kind=ToolKind.read,
    affinity=(M,),
    keywords=("задачи", "очередь", "tasks"),
)
def list_tasks(args: NoArgs, scope: CallScope) -> ToolRequest:
    """Recent background tasks and their status."""
    return ToolRequest(method="GET", path="/api/tasks")


@assistant_tool(
    title="Резервная копия окружения",
    kind=ToolKind.write,
    min_role=Role.admin,
    needs_env=True,
    keywords=("бэкап", "резервная", "копия", "backup"),
    starts_task=True,
)
def run_backup(args: NoArgs, scope: CallScope) -> ToolRequest:
    """Back up the current environment (every dashboard, chart, dataset and database, without
    passwords) into a verified archive; returns a task id to follow with get_task_status."""
    return ToolRequest(method="POST", path="/api/backups", json_body=env_param(scope))


@assistant_tool(
    title="Список резервных копий",
    kind=ToolKind.read,
    needs_env=True,
    keywords=("бэкапы", "копии", "backups"),
)
def list_backups(args: NoArgs, scope: CallScope) -> ToolRequest:
    """Backups of the current environment."""
    return ToolRequest(method="GET", path="/api/backups", params=env_param(scope))


class RestoreArgs(ToolArgs):
    backup_id: str = Field(
        max_length=100,
        pattern=BACKUP_ID_PATTERN,
        description="The backup's id from list_backups, e.g. ss-dev.20261130T051038123456Z",
    )
    target_env_id: str = Field(
        max_length=64, pattern=ENV_ID_PATTERN, description="Environment to restore it into"
    )


def _restore_target(args: RestoreArgs, scope: CallScope) -> str:
    return args.target_env_id


def _restore_preview(args: RestoreArgs, scope: CallScope) -> ToolRequest:
    return ToolRequest(
        method="POST",
        path=api_path("/api/backups", args.backup_id, "restore", "plan"),
        json_body={"target_env_id": args.target_env_id},
    )


@assistant_tool(
    title="Восстановление из резервной копии",
    kind=ToolKind.write,
    min_role=Role.admin,
    affinity=(M,),
    keywords=("восстанови", "восстановление", "восстановить", "restore"),
    preview=_restore_preview,
    target_env=_restore_target,
    starts_task=True,
)
def restore_backup(args: RestoreArgs, scope: CallScope) -> ToolRequest:
    """Restore a backup (from list_backups) into an environment: its dashboards, charts and
    datasets are imported over the environment's, databases are never changed; returns a task
    id to follow with get_task_status."""
    if scope.plan_digest is None:  # the card showed no plan: never apply one nobody saw
        raise ToolArgumentError("нет оценки восстановления: повторите, чтобы увидеть план")
    return ToolRequest(
        method="POST",
        path=api_path("/api/backups", args.backup_id, "restore"),
        json_body={"target_env_id": args.target_env_id, "digest": scope.plan_digest},
    )


class BranchArgs(ToolArgs):
    name: BranchName = Field(description="A git branch name, e.g. feature/sales-report")


@assistant_tool(
    title="Создание ветки",
    kind=ToolKind.write,
    min_role=Role.engineer,
    affinity=(D,),
    keywords=("ветка", "ветку", "branch"),
)
def create_branch(args: BranchArgs, scope: CallScope) -> ToolRequest:
    """Create a git branch in the repository of dashboard exports."""
    return ToolRequest(method="POST", path="/api/git/branches", json_body={"name": args.name})


class CommitArgs(ToolArgs):
    message: str = Field(min_length=1, max_length=500)
    dashboard_ids: list[ObjectId] = Field(default_factory=list, max_length=100)


@assistant_tool(
    title="Коммит изменений",
    kind=ToolKind.write,
    min_role=Role.engineer,
    affinity=(D,),
    keywords=("коммит", "закоммить", "сохрани", "commit", "версия"),
)
def commit_changes(args: CommitArgs, scope: CallScope) -> ToolRequest:
    """Export dashboards and commit them to the git repository."""
    ids = args.dashboard_ids
    if not ids and scope.object_type is D and scope.object_id is not None:
        ids = [scope.object_id]
    return ToolRequest(
        method="POST",
        path="/api/git/commits",
        json_body={"message": args.message, "dashboard_ids": ids, "env_id": scope.env_id},
    )


@assistant_tool(
    title="Статус git",
    kind=ToolKind.read,
    keywords=("git", "изменения", "незакоммиченные"),
)
def get_git_status(args: NoArgs, scope: CallScope) -> ToolRequest:
    """What changed in the dashboard-exports repository since the last commit."""
    # In an environment: its dashboards (this one, on a dashboard page) against the branch.
    params: dict[str, str | int] = {}
    if scope.env_id is not None:
        params["env_id"] = scope.env_id
        if scope.object_type is D and scope.object_id is not None:
            params["dashboard_id"] = scope.object_id
    return ToolRequest(method="GET", path="/api/git/status", params=params)


@assistant_tool(title="Список веток", kind=ToolKind.read, keywords=("ветки", "branches"))
def list_branches(args: NoArgs, scope: CallScope) -> ToolRequest:
    """Branches of the dashboard-exports repository."""
    return ToolRequest(method="GET", path="/api/git/branches")


@assistant_tool(
    title="Мои возможности",
    kind=ToolKind.read,
    always=True,
    local=True,
    keywords=("умеешь", "можешь", "помощь", "возможности", "help", "capabilities", "инструменты"),
)
def show_capabilities(args: NoArgs, scope: CallScope) -> ToolRequest:
    """List what the agent can do here and now, and why other tools are hidden."""
    raise NotImplementedError  # answered by the graph from the selection, not over HTTP
