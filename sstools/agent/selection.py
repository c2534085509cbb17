"""Which tools the model is offered: affinity(objectType) ∩ role ∩ environment → router → always.

Hard filtering (AGCTX-FR-005, AGTL-FR-001): a hidden tool is not in the prompt at all, and the
reason it is hidden is kept, so ``show_capabilities`` and invocation checks can say why.

The router (AGTL-FR-006, :mod:`sstools.agent.routing`) then narrows what the filters allowed to
what fits the message; it never adds a tool, and what it drops is hidden as ``not_routed``, so a
call to it is refused like any hidden tool's. ``always`` tools, the tools the conversation just
used and the follow-up tools of a started task are kept whatever the router says.

At a turn's first model call, :class:`ToolOffer` applies both to the conversation so far, and
the graph keeps that set for the whole turn (one tool list, so a server's prompt cache holds);
the router's wait for the message's embedding holds no thread.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage
from pydantic import BaseModel

from sstools.agent import texts
from sstools.agent.context import UIContext
from sstools.agent.offline.followup import follow_up, referred
from sstools.agent.offline.intent import SQL, mend
from sstools.agent.routing.history import recently_used, started_a_task
from sstools.agent.tools import CATALOGUE, ToolSpec
from sstools.auth.roles import Role
from sstools.metrics import ROUTER_SECONDS

# Narrows the candidates to the most relevant for the message.
Ranker = Callable[[str, list[ToolSpec]], list[ToolSpec]]


class Router(Protocol):
    """A :data:`Ranker` that says when it ranks, and can be awaited until it need not wait."""

    def ranks(self, message: str, candidates: Sequence[ToolSpec]) -> bool:
        """Whether it would narrow these at all (else they come back as they are)."""
        ...

    async def ready(self, message: str) -> None:
        """Until ranking ``message`` need not wait (for its embedding), holding no thread."""
        ...

    def __call__(self, message: str, candidates: list[ToolSpec]) -> list[ToolSpec]: ...


# Offered beside the context's tools once a task was started in the conversation: its status,
# and its rollback (a deploy's task line in a dashboard's chat offers «Откатить…»; the role
# still decides, and the server checks the task is a deploy of that environment).
FOLLOW_UP_TOOLS = frozenset({"get_task_status", "rollback_deploy"})


class HiddenBecause(StrEnum):
    context = "context"
    role = "role"
    no_environment = "no_environment"
    not_routed = "not_routed"  # allowed here, but the router found it unrelated to the message


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
        return HiddenTool(reason=HiddenBecause.no_environment, detail=texts.NEEDS_ENVIRONMENT)
    return None


@dataclass(frozen=True)
class Filtered:
    """What the hard filters allowed, what they hid (and why), and the names kept whatever the
    message says (only allowed ones are offered); the rest of the allowed is what a router ranks."""

    allowed: list[ToolSpec]
    hidden: dict[str, HiddenTool]
    kept: frozenset[str]

    @property
    def to_rank(self) -> list[ToolSpec]:
        return [tool for tool in self.allowed if tool.name not in self.kept]

    def narrowed(self, routed: Sequence[ToolSpec] | None) -> Selection:
        """The selection once a router kept ``routed`` of :attr:`to_rank` (None: no router)."""
        if routed is None:
            return Selection(offered=[tool.name for tool in self.allowed], hidden=self.hidden)
        names = {tool.name for tool in routed}
        offered = [tool for tool in self.allowed if tool.name in self.kept or tool.name in names]
        hidden = dict(self.hidden)
        for tool in self.allowed:
            if tool not in offered:
                hidden[tool.name] = HiddenTool(
                    reason=HiddenBecause.not_routed, detail=texts.NOT_ROUTED
                )
        # The always tools last, as the model has seen them so far.
        offered.sort(key=lambda tool: tool.always)
        return Selection(offered=[tool.name for tool in offered], hidden=hidden)


def hard_filter(
    role: Role,
    context: UIContext | None,
    *,
    catalogue: Mapping[str, ToolSpec] = CATALOGUE,
    following_task: bool = False,
    used: Collection[str] = (),
) -> Filtered:
    """``following_task``: the conversation started a task, so ``get_task_status`` and
    ``rollback_deploy`` are offered whatever the object (a task started from a dashboard page
    must be followable, and a deploy undoable, from it).
    ``used``: tools the conversation has just used, kept whatever the message says."""
    hidden: dict[str, HiddenTool] = {}
    allowed: list[ToolSpec] = []
    for tool in catalogue.values():
        follow_up = following_task and tool.name in FOLLOW_UP_TOOLS
        reason = _hidden_reason(tool, role, context, follow_up=follow_up)
        if reason is None:
            allowed.append(tool)
        else:
            hidden[tool.name] = reason
    kept = set(used) | (FOLLOW_UP_TOOLS if following_task else set())
    always = {tool.name for tool in allowed if tool.always}
    return Filtered(allowed=allowed, hidden=hidden, kept=frozenset(kept | always))


def select_tools(
    role: Role,
    context: UIContext | None,
    *,
    message: str = "",
    router: Ranker | None = None,
    catalogue: Mapping[str, ToolSpec] = CATALOGUE,
    following_task: bool = False,
    used: Collection[str] = (),
) -> Selection:
    """The hard filters, then ``router`` over what they left (see :func:`hard_filter`)."""
    filtered = hard_filter(
        role, context, catalogue=catalogue, following_task=following_task, used=used
    )
    if router is None:
        return filtered.narrowed(None)
    return filtered.narrowed(
        _with_sql(message, filtered.to_rank, router(message, filtered.to_rank))
    )


# A statement in the message is run or formatted, whatever else its words rank.
_SQL_TOOLS = frozenset({"superset_execute_sql", "superset_format_sql"})


def _with_sql(
    message: str, candidates: Sequence[ToolSpec], routed: Sequence[ToolSpec]
) -> list[ToolSpec]:
    """What the router kept, and the SQL tools when the message holds a statement."""
    if not SQL.search(message):
        return list(routed)
    return [tool for tool in candidates if tool in routed or tool.name in _SQL_TOOLS]


# -- at each step of a run -------------------------------------------------------------------------


def before_last_reply(messages: Sequence[AnyMessage]) -> list[AnyMessage]:
    """The conversation the model's latest reply was made from."""
    last_reply = max(
        (i for i, message in enumerate(messages) if isinstance(message, AIMessage)),
        default=len(messages) - 1,
    )
    return list(messages[:last_reply])


def last_human_text(messages: Sequence[BaseMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return str(message.content)
    return ""


def routing_text(messages: Sequence[BaseMessage], context: UIContext | None = None) -> str:
    """What the tools are ranked for: the latest message, read with the one it completes when it
    answers the agent's question back («все» after «какие дашборды перенести?») or with what the
    agent's last answer named when it refers to it («почему вторая упала»), with the slips of a
    command's words typed right («вкыати» as «выкати»)."""
    said = follow_up(messages, routed=True) or referred(messages, context)
    return mend(said or last_human_text(messages))


class ToolOffer:
    def __init__(self, router: Router | None) -> None:
        self._router = router

    def _filtered(
        self, messages: Sequence[AnyMessage], context: UIContext | None, role: Role
    ) -> Filtered:
        return hard_filter(
            role, context, following_task=started_a_task(messages), used=recently_used(messages)
        )

    def unrouted(
        self, messages: Sequence[AnyMessage], context: UIContext | None, role: Role
    ) -> Selection:
        """Everything the filters allow, whatever the message says (``show_capabilities``)."""
        return self._filtered(messages, context, role).narrowed(None)

    async def routed(
        self,
        messages: Sequence[AnyMessage],
        context: UIContext | None,
        role: Role,
        *,
        timed: bool = False,
    ) -> Selection:
        """Offered now: the embedding awaited on the loop, and only where the router ranks (a
        router that does not rank returns its candidates as they are); ``timed``: once per turn,
        in ``sstools_router_seconds``."""
        filtered = self._filtered(messages, context, role)
        message = routing_text(messages, context)
        router = self._router
        if router is None or not router.ranks(message, filtered.to_rank):
            return filtered.narrowed(None if router is None else filtered.to_rank)
        began = time.perf_counter()
        await router.ready(message)
        routed = await asyncio.to_thread(router, message, filtered.to_rank)  # BM25 reads it all
        routed = _with_sql(message, filtered.to_rank, routed)
        if timed:
            ROUTER_SECONDS.observe(time.perf_counter() - began)
        return filtered.narrowed(routed)
