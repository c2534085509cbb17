"""What a graph step tells the person (events) and the model (tool messages) about a call.

Kept beside the graph so its nodes read as decisions: refused, cancelled, or run with this result.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage

from sstools.agent import texts
from sstools.agent.events import (
    Cancelled,
    ErrorEvent,
    MessageEvent,
    PermissionDenied,
    ToolResultEvent,
    encode,
)
from sstools.agent.executor import Outcome, ToolResult
from sstools.agent.invocation import Refused, ToolCall
from sstools.agent.routing.history import NOT_RUN
from sstools.agent.tools import ToolSpec


def _not_run(call: ToolCall, key: str, text: str) -> ToolMessage:
    """The message of a call that never ran: it neither succeeded nor started anything."""
    return ToolMessage(
        content=json.dumps({key: text}, ensure_ascii=False),
        tool_call_id=call["id"],
        name=call["name"],
        status="error",
        artifact=NOT_RUN,
    )


def refusal(
    call: ToolCall, refused: Refused, run_id: str
) -> tuple[list[dict[str, Any]], ToolMessage]:
    """A call that does not run: a ``permission_denied`` card if it is one, and why to the model."""
    emit = []
    if refused.required_role is not None:
        denied = PermissionDenied(
            tool=call["name"],
            call_id=call["id"],
            required_roles=[refused.required_role.value],
            message=refused.message,
            run_id=run_id,
        )
        emit.append(encode(denied))
    result = ToolResultEvent(
        tool=call["name"],
        call_id=call["id"],
        outcome="refused",
        message=refused.message,
        run_id=run_id,
    )
    emit.append(encode(result))
    return emit, _not_run(call, "error", refused.message)


def cancellation(
    tool: ToolSpec, confirmation_id: str, reason: str, not_run: list[ToolCall]
) -> tuple[list[dict[str, Any]], list[AnyMessage]]:
    """A card denied, expired or mismatched: «Операция отменена: …», and no call left pending."""
    text = texts.OPERATION_CANCELLED.format(reason=reason)
    cancelled = Cancelled(
        tool=tool.name, confirmation_id=confirmation_id, reason=reason, message=text
    )
    messages: list[AnyMessage] = [_not_run(item, "cancelled", text) for item in not_run]
    messages.append(AIMessage(content=text))
    return [encode(cancelled), encode(MessageEvent(text=text))], messages


def crashed(tool: ToolSpec) -> ToolResult:
    """The result of a call that raised: the person and the model learn it failed, not why."""
    message = texts.TOOL_CRASHED.format(tool=tool.title)
    content = json.dumps({"error": message}, ensure_ascii=False)
    return ToolResult(outcome=Outcome.error, message=message, content=content)


def result_events(
    tool: ToolSpec, call: ToolCall, result: ToolResult, run_id: str, *, crash: bool
) -> tuple[list[dict[str, Any]], bool]:
    """The events of a call that ran, and whether the run must stop (the session expired)."""
    outcome = ToolResultEvent(
        tool=tool.name,
        title=tool.title,
        call_id=call["id"],
        outcome=result.outcome.value,
        message=result.message,
        task_id=result.task_id,
        run_id=run_id,
    )
    emit = [encode(outcome)]
    message = result.message or ""
    if result.outcome is Outcome.session_expired:
        emit.append(
            encode(ErrorEvent(code="session_expired", message=texts.SESSION_EXPIRED, run_id=run_id))
        )
        return emit, True
    if result.outcome is Outcome.permission_denied:
        denied = PermissionDenied(
            tool=tool.name,
            call_id=call["id"],
            required_roles=result.required_roles,
            message=message,
            run_id=run_id,
        )
        emit.append(encode(denied))
    elif result.outcome in (Outcome.timeout, Outcome.unknown):
        emit.append(encode(ErrorEvent(code="timeout", message=message, run_id=run_id)))
    elif crash:
        emit.append(encode(ErrorEvent(code="tool_error", message=message, run_id=run_id)))
    return emit, False
