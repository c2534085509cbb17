"""Which tools the model is offered: affinity(objectType) ∩ role ∩ environment → router → always.

Hard filtering (AGCTX-FR-005, AGTL-FR-001): a hidden tool is not in the prompt at all, and the
reason it is hidden is kept, so ``show_capabilities`` and invocation checks can say why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum

from pydantic import BaseModel

from sstools.agent import texts
from sstools.agent.context import UIContext
from sstools.agent.tools import CATALOGUE, ToolSpec
from sstools.auth.roles import Role

# A router narrows the candidates to the most relevant for the message (a later issue adds one).
Router = Callable[[str, list[ToolSpec]], list[ToolSpec]]


# Offered beside the context's tools once a task was started in the conversation.
FOLLOW_UP_TOOLS = frozenset({"get_task_status"})


class HiddenBecause(StrEnum):
    context = "context"
    role = "role"
    no_environment = "no_environment"


class HiddenTool(BaseModel):
    reason: HiddenBecause
    detail: str


class Selection(BaseModel):
    offered: list[str]
    hidden: dict[str, HiddenTool]


def _hidden_reason(
    tool: ToolSpec, role: Role, context: UIContext | None, *, follow_up: bool
) -> HiddenTool | None:
    if tool.always:
        return None
    object_type = context.object_type if context else None
    if object_type is not None and object_type not in tool.affinity and not follow_up:
        detail = texts.HIDDEN_BY_CONTEXT.format(object_type=object_type.value)
        return HiddenTool(reason=HiddenBecause.context, detail=detail)
    if not role.allows(tool.min_role):
        detail = texts.HIDDEN_BY_ROLE.format(role=tool.min_role.value)
        return HiddenTool(reason=HiddenBecause.role, detail=detail)
    if tool.needs_env and (context is None or context.env_id is None):
        return HiddenTool(reason=HiddenBecause.no_environment, detail=texts.HIDDEN_NO_ENVIRONMENT)
    return None


def select_tools(
    role: Role,
    context: UIContext | None,
    *,
    message: str = "",
    router: Router | None = None,
    catalogue: Mapping[str, ToolSpec] = CATALOGUE,
    following_task: bool = False,
) -> Selection:
    """``following_task``: the conversation started a task, so ``get_task_status`` is offered
    whatever the object (a task started from a dashboard page must be followable from it)."""
    hidden: dict[str, HiddenTool] = {}
    allowed: list[ToolSpec] = []
    for tool in catalogue.values():
        follow_up = following_task and tool.name in FOLLOW_UP_TOOLS
        reason = _hidden_reason(tool, role, context, follow_up=follow_up)
        if reason is None:
            allowed.append(tool)
        else:
            hidden[tool.name] = reason
    if router is not None:
        allowed = [tool for tool in router(message, allowed) if not tool.always] + [
            tool for tool in allowed if tool.always
        ]
    return Selection(offered=[tool.name for tool in allowed], hidden=hidden)
