"""Deploy tools: plan, deploy and migrate dashboards between environments, and roll back.

Every write here applies a plan: the card's impact comes from ``POST /api/deploy/plan`` (a
rollback's from ``POST /api/deploy/{task_id}/rollback/plan``) and the approved call carries that
plan's digest, so the server applies exactly what the person saw.

A write that has a plan also answers a question about itself: called with ``dry_run: true``
(:class:`DryRunArgs`) it is a read — no card, no task, audited as a read — and the executor sends
its preview instead of the write, so the plan is the answer and nothing is written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field

from sstools.agent.context import ObjectType
from sstools.agent.texts import tools as texts
from sstools.agent.tools.call import (
    CallScope,
    ToolArgumentError,
    ToolRequest,
    named_env,
    named_target,
    object_id,
)
from sstools.agent.tools.paths import EnvId, ObjectId, TaskId, api_path
from sstools.agent.tools.shaping import listed, pick, task_record
from sstools.agent.tools.spec import (
    Builder,
    DetailArgs,
    ToolArgs,
    ToolKind,
    assistant_tool,
    environment_read,
)
from sstools.auth.roles import Role
from sstools.ids import BranchName

D, M = ObjectType.dashboard, ObjectType.migration
DEPLOY = "/api/deploy"


DatabaseName = Annotated[str, Field(min_length=1, max_length=250)]


class MappedArgs(ToolArgs):
    """A plan's arguments that may point a source database at another of the target's."""

    database_mapping: dict[DatabaseName, DatabaseName] | None = Field(
        default=None, max_length=50, description="Source database -> target database, by name"
    )


def _plan_body(
    dashboard_ids: list[int],
    source_env: str | None,
    git_ref: str | None,
    target: str,
    database_mapping: dict[str, str] | None = None,
) -> dict[str, object]:
    if source_env is None and git_ref is None:
        raise ToolArgumentError(texts.NO_SOURCE)
    source: dict[str, str] = {}
    if source_env is not None:
        source["env_id"] = source_env
    if git_ref is not None:
        source["git_ref"] = git_ref
    body: dict[str, object] = {
        "dashboard_ids": dashboard_ids,
        "source": source,
        "target_env_id": target,
    }
    if database_mapping:
        body["database_mapping"] = database_mapping
    return body


class DryRunArgs(ToolArgs):
    """Arguments of a write that has a plan: ``dry_run`` asks for the plan only."""

    dry_run: bool = Field(default=False, description="true: only the plan; nothing is written")


def is_dry_run(args: ToolArgs) -> bool:
    """Whether the call asks only what the write would change (its plan is the answer)."""
    return isinstance(args, DryRunArgs) and args.dry_run


def planned_kind(args: ToolArgs) -> ToolKind:
    """A dry run is a read: the guardrails clear it without a card (the role check stays)."""
    return ToolKind.read if is_dry_run(args) else ToolKind.write


def task_or_plan(payload: Any, args: ToolArgs) -> Any:
    """A write's answer as the model reads it: its task record, or for a dry run its plan."""
    return plan_shape(payload, args) if is_dry_run(args) else task_record(payload, args)


def planned_write(
    *,
    min_role: Role,
    preview: Builder,
    target_env: Callable[[Any, CallScope], str | None],
    affinity: tuple[ObjectType, ...],
    needs_env: bool = False,
    editable: tuple[str, ...] = (),
) -> Callable[[Builder], Builder]:
    """``@assistant_tool`` for a write that has a plan: a task, or with ``dry_run`` a read
    answered by the plan its ``preview`` fetches."""
    return assistant_tool(
        kind=ToolKind.write,
        min_role=min_role,
        needs_env=needs_env,
        affinity=affinity,
        preview=preview,
        classify=planned_kind,
        target_env=target_env,
        starts_task=True,
        shape=task_or_plan,
        editable=editable,
    )


def plan_of(path: str, body: dict[str, object]) -> ToolRequest:
    """The preview of the write ``POST path``: its plan, from ``POST path/plan`` with that body."""
    return ToolRequest(method="POST", path=api_path(path, "plan"), json_body=body)


def applied(path: str, body: dict[str, object], scope: CallScope) -> ToolRequest:
    """The write ``POST path``, bound by digest to the plan the person approved on the card."""
    # No digest: the card had no plan (its preview failed); the server refuses to guess one.
    digest = scope.approved_plan.digest if scope.approved_plan else None
    return ToolRequest(method="POST", path=path, json_body={**body, "digest": digest})


class DeployArgs(MappedArgs, DryRunArgs):
    dashboard_id: ObjectId | None = Field(default=None, description="Defaults to the context")
    target_env_id: EnvId = Field(description="Environment id to deploy to")
    git_ref: BranchName | None = Field(
        default=None,
        description="A git branch, or a 40-hex commit id, to deploy from instead",
    )


def _deploy_body(args: DeployArgs, scope: CallScope) -> dict[str, object]:
    dashboard = object_id(args.dashboard_id, scope, D)
    return _plan_body(
        [dashboard], scope.env_id, args.git_ref, args.target_env_id, args.database_mapping
    )


def _deploy_preview(args: DeployArgs, scope: CallScope) -> ToolRequest:
    return plan_of(DEPLOY, _deploy_body(args, scope))


@planned_write(
    min_role=Role.engineer,
    needs_env=True,
    affinity=(D,),
    preview=_deploy_preview,
    target_env=named_target,
    editable=("target_env_id", "database_mapping"),
)
def deploy_dashboard(args: DeployArgs, scope: CallScope) -> ToolRequest:
    """Deploy a dashboard with its charts and datasets, e.g. to prod.

    From the current environment (or a git branch) to another one; returns a task id to follow
    with get_task_status."""
    return applied(DEPLOY, _deploy_body(args, scope), scope)


class _MigrationTarget(MappedArgs):
    """What a migration and its preview share: where from, where to, which dashboards."""

    target_env_id: EnvId = Field(description="Where to migrate")
    source_env_id: EnvId | None = Field(default=None, description="Defaults to the current one")
    dashboard_ids: list[ObjectId] = Field(
        default_factory=list, max_length=100, description="Omit for the dashboard in context"
    )


class MigrationArgs(_MigrationTarget, DryRunArgs):
    pass


def _migration_body(args: _MigrationTarget, scope: CallScope) -> dict[str, object]:
    ids = scope.dashboards(args.dashboard_ids)
    if not ids:
        raise ToolArgumentError(texts.NO_DASHBOARDS)
    source = args.source_env_id or scope.env_id
    return _plan_body(ids, source, None, args.target_env_id, args.database_mapping)


def _preview(args: _MigrationTarget, scope: CallScope) -> ToolRequest:
    # A migration is planned as a deploy of the dashboards it moves.
    return plan_of(DEPLOY, _migration_body(args, scope))


@planned_write(
    min_role=Role.engineer,
    needs_env=True,
    affinity=(D, M),
    preview=_preview,
    target_env=named_target,
    editable=("dashboard_ids", "target_env_id", "database_mapping"),
)
def execute_migration(args: MigrationArgs, scope: CallScope) -> ToolRequest:
    """Migrate dashboards from one environment to another.

    With their charts and datasets; returns a task id to follow with get_task_status."""
    return applied("/api/migrations", _migration_body(args, scope), scope)


class PreviewArgs(_MigrationTarget, DetailArgs):
    pass


_CHANGES_SHOWN = 20
# The model reads a changed field's values only as an excerpt: the card and the compare page
# show them whole, and the model's token budget is better spent elsewhere.
_EXCERPTS_SHOWN = 3
_EXCERPT_CHARS = 80


def _excerpt(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    flat = " ".join(value.split())
    return flat if len(flat) <= _EXCERPT_CHARS else flat[: _EXCERPT_CHARS - 1] + "…"


def _excerpts(item: dict[str, Any]) -> list[dict[str, Any]]:
    """The first changed fields in words, each with a short excerpt of before and after."""
    return [
        {
            "label": change.get("label"),
            "before": _excerpt(change.get("before")),
            "after": _excerpt(change.get("after")),
        }
        for change in listed(item.get("changes"))[:_EXCERPTS_SHOWN]
        if isinstance(change, dict)
    ]


def _changing(item: dict[str, Any]) -> dict[str, Any]:
    shown = pick(item, "kind", "name", "action", "fields", "target_id")
    excerpts = _excerpts(item)
    return shown | {"changes": excerpts} if excerpts else shown


def plan_shape(payload: Any, args: ToolArgs) -> Any:
    """The verdict, then only the objects that change (unchanged ones counted), by name and id;
    a changed field's values as a short excerpt only."""
    out = pick(payload, "source", "target_env_id", "target_stage", "summary", "dashboards_changed")
    out |= pick(payload, "applicable", "backup_id", "deploy_task_id", "deployed_by", "digest")
    objects = [item for item in listed(payload["objects"]) if isinstance(item, dict)]
    changing = [_changing(item) for item in objects if item.get("action") != "unchanged"]
    out["objects"] = changing[:_CHANGES_SHOWN]
    out["objects_total_count"] = len(objects)
    out["unchanged_count"] = len(objects) - len(changing)
    if len(changing) > _CHANGES_SHOWN:
        out["note"] = texts.CHANGES_CUT.format(
            shown=_CHANGES_SHOWN, total=len(changing), how=texts.MORE_DETAIL
        )
    keys = ("source_name", "target_name", "target_id", "matched_by")
    out["databases"] = [pick(database, *keys) for database in listed(payload.get("databases"))]
    unresolved = listed(payload.get("unresolved_charts"))
    if unresolved:
        out["unresolved_charts"] = [
            pick(chart, "name", "reason", "removed_from_target") for chart in unresolved
        ]
    return out


@environment_read(affinity=(M,), target_env=named_target, shape=plan_shape)
def preview_migration(args: PreviewArgs, scope: CallScope) -> ToolRequest:
    """Show what a migration would change.

    In the target, object by object, without changing anything."""
    return _preview(args, scope)


class RollbackArgs(DryRunArgs):
    task_id: TaskId = Field(description="The id of the deploy or migration task to undo")
    env_id: EnvId = Field(description="Where that task deployed")


def _rollback_path(args: RollbackArgs) -> str:
    return api_path(DEPLOY, args.task_id, "rollback")


def _rollback_preview(args: RollbackArgs, scope: CallScope) -> ToolRequest:
    # The rollback's own plan, from the snapshot commit the deploy pinned: the card's impact.
    return plan_of(_rollback_path(args), {"env_id": args.env_id})


@planned_write(
    min_role=Role.engineer,
    affinity=(D, M),
    preview=_rollback_preview,
    target_env=named_env,
)
def rollback_deploy(args: RollbackArgs, scope: CallScope) -> ToolRequest:
    """Restore what a deploy or migration task changed.

    From the snapshot taken before it (its owner or an admin may); returns a task id to follow
    with get_task_status."""
    return applied(_rollback_path(args), {"env_id": args.env_id}, scope)
