"""The chat's catalogue as an MCP host sees it: the tools a role may use, with annotations.

A chat tool takes its environment and object from the page; here they are arguments:
``env_id`` (the current or source environment) wherever the tool reads the page's environment,
``dashboard_id`` / ``dataset_id`` where the tool reads the page's object and has no such argument
of its own. They are split off into the call's :class:`CallScope` before the tool's own arguments
are checked, so the invocation guard sees exactly what the chat would.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp import types
from pydantic import BaseModel, Field, ValidationError

from sstools.agent.context import ObjectType
from sstools.agent.selection import HiddenBecause, HiddenTool, Selection
from sstools.agent.tools import CATALOGUE, CallScope, ToolKind, ToolSpec
from sstools.auth.roles import Role
from sstools.errors import SstoolsError
from sstools.texts import mcp as texts

# The page's place, as arguments: read into the call's scope, never passed to the tool itself.
_PAGE_ENV = "env_id"
_PAGE_OBJECTS = {"dashboard_id": ObjectType.dashboard, "dataset_id": ObjectType.dataset}


class PagePlace(BaseModel):
    """What the chat takes from the page, given as arguments."""

    env_id: str | None = Field(default=None, max_length=64)
    dashboard_id: int | None = Field(default=None, ge=1, le=2**31 - 1)
    dataset_id: int | None = Field(default=None, ge=1, le=2**31 - 1)


def _served(tool: ToolSpec) -> bool:
    """Tools answered by the chat itself (no HTTP call) have nothing to serve here."""
    return tool.build is not None


def _page_arguments(tool: ToolSpec) -> dict[str, Any]:
    """The page's place this tool reads, as JSON Schema properties its own arguments lack."""
    own = tool.args_model.model_fields
    extra: dict[str, Any] = {}
    if _PAGE_ENV not in own:
        extra[_PAGE_ENV] = {"type": "string", "description": texts.ENV_ARGUMENT}
    for name, object_type in _PAGE_OBJECTS.items():
        if name not in own and object_type in tool.affinity:
            extra[name] = {"type": "integer", "description": texts.OBJECT_ARGUMENT[name]}
    return extra


def _input_schema(tool: ToolSpec) -> dict[str, Any]:
    schema = tool.args_model.model_json_schema()
    schema.setdefault("properties", {}).update(_page_arguments(tool))
    schema.pop("additionalProperties", None)  # the page's arguments are allowed beside the tool's
    return schema


def _annotations(tool: ToolSpec) -> types.ToolAnnotations:
    if tool.kind is ToolKind.read and tool.classify is None:
        return types.ToolAnnotations(title=tool.title, readOnlyHint=True, openWorldHint=False)
    # A write (or SQL, a write for DML): held on the server for the person's word either way.
    return types.ToolAnnotations(
        title=tool.title,
        readOnlyHint=False,
        destructiveHint=tool.name not in _ADDS_ONLY,
        idempotentHint=False,
        openWorldHint=False,
    )


# Writes that only add (a new dataset, branch, commit or backup): nothing existing changes.
_ADDS_ONLY = frozenset({"superset_create_dataset", "create_branch", "commit_changes", "run_backup"})


def tools_for(role: Role) -> list[types.Tool]:
    """The catalogue's tools ``role`` may use, as MCP tools."""
    return [
        types.Tool(
            name=tool.name,
            title=tool.title,
            description=tool.description,
            inputSchema=_input_schema(tool),
            annotations=_annotations(tool),
        )
        for tool in CATALOGUE.values()
        if _served(tool) and role.allows(tool.min_role)
    ]


def selection_for(role: Role) -> Selection:
    """What the invocation guard is told was offered: every served tool of the role."""
    offered, hidden = [], {}
    for tool in CATALOGUE.values():
        if not _served(tool):
            continue
        if role.allows(tool.min_role):
            offered.append(tool.name)
        else:
            hidden[tool.name] = HiddenTool(reason=HiddenBecause.role, detail="")
    return Selection(offered=offered, hidden=hidden)


@dataclass(frozen=True)
class SplitCall:
    """A call's own arguments and the scope its page arguments make."""

    args: dict[str, Any]
    scope: CallScope


class PlaceInvalid(SstoolsError, ValueError):
    """The page's arguments are not what they should be: the problems, in words."""


def split_call(tool: ToolSpec | None, arguments: dict[str, Any]) -> SplitCall:
    """``arguments`` parted into the tool's own and the page's (:class:`PagePlace`)."""
    own = tool.args_model.model_fields if tool is not None else {}
    page_names = {_PAGE_ENV, *_PAGE_OBJECTS} - set(own)
    page = {name: value for name, value in arguments.items() if name in page_names}
    try:
        place = PagePlace.model_validate(page)
    except ValidationError as exc:
        raise PlaceInvalid(
            "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        ) from exc
    object_type, object_id = None, None
    if place.dashboard_id is not None:
        object_type, object_id = ObjectType.dashboard, place.dashboard_id
    elif place.dataset_id is not None:
        object_type, object_id = ObjectType.dataset, place.dataset_id
    own_env = arguments.get(_PAGE_ENV) if _PAGE_ENV in own else None
    env_id = place.env_id or (own_env if isinstance(own_env, str) else None)
    return SplitCall(
        args={name: value for name, value in arguments.items() if name not in page_names},
        scope=CallScope(env_id=env_id, object_type=object_type, object_id=object_id),
    )
