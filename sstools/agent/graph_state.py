"""The agent graph's state: plain data in the checkpoint, decoded once per step.

The strict checkpoint serialiser rebuilds no class of ours, so the state holds TypedDicts and
plain values; :class:`Page` is what a step decodes from it (the page's context and a call's scope).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from sstools.agent.context import UIContext
from sstools.agent.events import EncodedEvent
from sstools.agent.guardrails import GuardrailDecision
from sstools.agent.invocation import PendingCall, ToolCall
from sstools.agent.tools import ApprovedPlan, CallScope
from sstools.llm.usage import Cost


class AgentState(TypedDict, total=False):
    """Plain data only: the strict checkpoint serialiser rebuilds no class of ours."""

    messages: Annotated[list[AnyMessage], add_messages]
    context: dict[str, Any] | None  # UIContext.public(); decoded once per step by `Page`
    queue: list[ToolCall]
    current: PendingCall | None
    emit: list[EncodedEvent]
    halted: bool
    # Decided at the turn's first model call (see ``AgentGraph._turn``), and again after an
    # approval (None until then).
    turn: TurnState | None
    again: bool  # ask the model once more before anything runs (a call written wrongly as text)
    # What the agent step's model call cost: the driver adds it to the person's day (None:
    # nothing to count, the offline planner's step).
    spent: Cost | None


class TurnState(TypedDict):
    """What holds for the whole turn: the offered set (one, so a prompt cache holds), and the
    second chances the model had (a text call written wrongly, a call repeated)."""

    offer: dict[str, Any]  # Selection as JSON
    text_retry: bool
    loop_nudged: bool


@dataclass(frozen=True)
class Page:
    """Where the page is, decoded once per step from the state: the context and a call's scope."""

    context: UIContext | None
    scope: CallScope

    @classmethod
    def of(cls, state: AgentState) -> Page:
        raw = state.get("context")
        context = UIContext.model_validate(raw) if raw else None
        if context is None:
            return cls(None, CallScope())
        scope = CallScope(
            env_id=context.env_id,
            object_type=context.object_type,
            object_id=int(context.object_id) if context.object_id else None,
            filters=context.filters,
            chart_id=int(context.chart_id) if context.chart_id else None,
        )
        return cls(context, scope)


def approved_plan(current: PendingCall) -> ApprovedPlan | None:
    """The plan the approved card showed, if it showed one: what an apply is bound to."""
    digest = GuardrailDecision.model_validate(current["decision"]).digest
    return ApprovedPlan(digest=digest) if digest is not None else None
