"""Migration tools: preview and execute moving dashboards between environments."""

from __future__ import annotations

from pydantic import Field

from sstools.agent.context import ObjectType
from sstools.agent.tools.paths import ObjectId
from sstools.agent.tools.spec import (
    CallScope,
    ToolArgs,
    ToolArgumentError,
    ToolKind,
    ToolRequest,
    assistant_tool,
)
from sstools.auth.roles import Role

D, M = ObjectType.dashboard, ObjectType.migration


class MigrationArgs(ToolArgs):
    target_env_id: str = Field(max_length=64, description="Environment to migrate into")
    source_env_id: str | None = Field(
        default=None, max_length=64, description="Defaults to current"
    )
    dashboard_ids: list[ObjectId] = Field(
        default_factory=list, max_length=100, description="Defaults to the dashboard in context"
    )


def _body(args: MigrationArgs, scope: CallScope) -> dict[str, object]:
    source = args.source_env_id or scope.env_id
    if source is None:
        raise ToolArgumentError("укажите source_env_id: окружение не выбрано")
    ids = args.dashboard_ids
    if not ids and scope.object_type is D and scope.object_id is not None:
        ids = [scope.object_id]
    if not ids:
        raise ToolArgumentError("укажите dashboard_ids")
    return {"source_env_id": source, "target_env_id": args.target_env_id, "dashboard_ids": ids}


def _target(args: MigrationArgs, scope: CallScope) -> str:
    return args.target_env_id


def _preview(args: MigrationArgs, scope: CallScope) -> ToolRequest:
    return ToolRequest(method="POST", path="/api/migrations/preview", json_body=_body(args, scope))


@assistant_tool(
    title="Миграция дашбордов",
    kind=ToolKind.write,
    min_role=Role.engineer,
    needs_env=True,
    affinity=(D, M),
    keywords=("миграция", "мигрируй", "перенеси", "перенос", "migrate"),
    preview=_preview,
    target_env=_target,
)
def execute_migration(args: MigrationArgs, scope: CallScope) -> ToolRequest:
    """Migrate dashboards (with their charts and datasets) from one environment to another."""
    return ToolRequest(method="POST", path="/api/migrations", json_body=_body(args, scope))


@assistant_tool(
    title="Предпросмотр миграции",
    kind=ToolKind.read,
    needs_env=True,
    affinity=(M,),
    keywords=("предпросмотр", "что изменится", "diff", "разница", "preview"),
    target_env=_target,
)
def preview_migration(args: MigrationArgs, scope: CallScope) -> ToolRequest:
    """Show what a migration would change, without changing anything."""
    return _preview(args, scope)
