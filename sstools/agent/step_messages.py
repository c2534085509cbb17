"""What a graph step tells the person (events) and the model (tool messages) about a call.

Kept beside the graph so its nodes read as decisions: refused, cancelled, or run with this result.
"""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage

from sstools.agent import explain, texts
from sstools.agent.card.impact import no_card_because
from sstools.agent.events import (
    Cancelled,
    EncodedEvent,
    ErrorEvent,
    MessageEvent,
    PermissionDenied,
    ToolResultEvent,
    encode,
)
from sstools.agent.executor import Outcome, Preview, ToolResult
from sstools.agent.invocation import Refused, ToolCall
from sstools.agent.routing.history import CARD_SHOWN, NOT_RUN
from sstools.agent.tools import CATALOGUE, ToolSpec


def _not_run(
    call: ToolCall, key: str, text: str, said: str | None = None, *, card_shown: bool = False
) -> ToolMessage:
    """The message of a call that never ran: it neither succeeded nor started anything.
    ``said``: a person's reason, kept apart as a quoted string and marked as their words."""
    body = {key: text}
    if said:
        body |= {"reason": said, "reason_is": texts.DENIAL_REASON_NOTE}
    return ToolMessage(
        content=json.dumps(body, ensure_ascii=False),
        tool_call_id=call["id"],
        name=call["name"],
        status="error",
        artifact=NOT_RUN,
        response_metadata={CARD_SHOWN: True} if card_shown else {},
    )


def refusal(
    call: ToolCall, refused: Refused, run_id: str
) -> tuple[list[EncodedEvent], ToolMessage]:
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
    known = CATALOGUE.get(call["name"])  # the model may have named no tool of ours
    result = ToolResultEvent(
        tool=call["name"],
        title=known.title if known else None,
        call_id=call["id"],
        outcome="refused",
        message=refused.message,
        run_id=run_id,
    )
    emit.append(encode(result))
    # An edited call refused: the model still learns what the person changed on the card.
    return emit, _not_run(call, "error", told_of_edit(refused.message, call))


def instead_of_a_card(
    call: ToolCall, tool: ToolSpec, preview: Preview, run_id: str
) -> tuple[list[EncodedEvent], ToolMessage] | None:
    """A write whose plan rules out a card (none could be made, it cannot apply, it changes
    nothing): the call does not run and the run answers in words. None: show the card."""
    plan = preview.plan
    why = no_card_because(plan)
    if why is None:
        return None
    if why == "no_plan" or plan is None:
        text = explain.plan_unavailable(tool.title, preview.problem)
    elif why == "not_applicable":
        unmapped = [str(row.source_name) for row in plan.databases if row.target_uuid is None]
        targets = [  # named only where the person can pick one (restores and rollbacks cannot)
            str(row.name) for row in plan.target_databases if "database_mapping" in tool.editable
        ]
        text = explain.plan_not_applicable(tool.title, plan.summary[:300], unmapped, targets)
    else:
        text = explain.plan_changes_nothing(tool.title, plan.summary[:300])
    result = ToolResultEvent(
        tool=call["name"],
        title=tool.title,
        call_id=call["id"],
        outcome="refused",
        message=text,
        run_id=run_id,
    )
    return [encode(result)], ToolMessage(
        content=told_of_edit(text, call),
        tool_call_id=call["id"],
        name=call["name"],
        status="error",
        artifact=NOT_RUN,
    )


def cancellation(
    tool: ToolSpec,
    confirmation_id: str,
    reason: str,
    not_run: list[ToolCall],
    run_id: str,
    *,
    said: str | None = None,
) -> tuple[list[EncodedEvent], list[AnyMessage]]:
    """A card denied, expired, mismatched or its target moved: «Операция отменена: …», and no
    call left pending.

    ``reason`` is :func:`explain.cancelled`'s; ``said`` the person's own reason for a denial.
    The person reads it in the sentence; the model never does: a reason written by someone
    else (a second approver) would read as the model's own words or as instructions, so it
    reaches the model only as a quoted JSON string beside the sentence, marked as a person's.
    """
    shown = explain.with_reason(reason, said)
    text = explain.operation_cancelled(shown)
    cancelled = Cancelled(
        tool=tool.name, confirmation_id=confirmation_id, reason=shown, message=text, run_id=run_id
    )
    ours = explain.operation_cancelled(reason)
    messages: list[AnyMessage] = [
        _not_run(item, "cancelled", ours, said, card_shown=item["name"] == tool.name)
        for item in not_run
    ]
    messages.append(AIMessage(content=ours))
    return [encode(cancelled), encode(MessageEvent(text=text, run_id=run_id))], messages


def unusable_reply(run_id: str) -> tuple[EncodedEvent, str]:
    """A reply whose tool calls are not JSON: an ``llm_error`` and the words for the history."""
    text = explain.model_reply_unusable()
    return encode(ErrorEvent(code="llm_error", message=text, run_id=run_id)), text


def unusable_arguments(error: Exception) -> ToolResult:
    """Arguments that validate but do not say enough: the builder's reason, to both readers."""
    message = str(error)
    return ToolResult(
        outcome=Outcome.error,
        message=message,
        content=json.dumps({"error": message}, ensure_ascii=False),
    )


def crashed(tool: ToolSpec) -> ToolResult:
    """The result of a call that raised: the person and the model learn it failed, not why."""
    message = explain.crashed(tool.title)
    content = json.dumps({"error": message}, ensure_ascii=False)
    return ToolResult(outcome=Outcome.error, message=message, content=content)


def result_events(
    tool: ToolSpec, call: ToolCall, result: ToolResult, run_id: str, *, crash: bool
) -> tuple[list[EncodedEvent], bool]:
    """The events of a call that ran, and whether the run must stop (the session expired)."""
    outcome = ToolResultEvent(
        tool=tool.name,
        title=tool.title,
        call_id=call["id"],
        outcome=result.outcome.value,
        message=result.message,
        task_id=result.task_id,
        figures=result.figures,
        run_id=run_id,
    )
    emit = [encode(outcome)]
    message = result.message or ""
    if result.outcome is Outcome.session_expired:
        emit.append(
            encode(
                ErrorEvent(code="session_expired", message=explain.session_expired(), run_id=run_id)
            )
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


def with_edited_call(messages: list[AnyMessage], edited: ToolCall) -> list[AnyMessage]:
    """The model's message that made the call, with the call's arguments as the person edited
    them (same message id: the history's reducer replaces it), or nothing if it is not there."""
    for message in reversed(messages):
        if isinstance(message, AIMessage) and any(
            one["id"] == edited["id"] for one in message.tool_calls
        ):
            calls = [
                {**one, "args": edited["args"]} if one["id"] == edited["id"] else one
                for one in message.tool_calls
            ]
            return [message.model_copy(update={"tool_calls": calls})]
    return []


def told_of_edit(content: str, call: ToolCall) -> str:
    """A tool's result as the model reads it, with what the person changed on the card first
    (kept JSON where it was: the offline answers and the turn's bookkeeping parse it)."""
    changes = call.get("edited")
    if not changes:
        return content
    note = texts.EDITED_BY_PERSON.format(changes=changes)
    try:
        payload = json.loads(content)
    except ValueError:
        return f"{note}\n{content}"
    if isinstance(payload, dict):
        return json.dumps({"edited_by_person": note, **payload}, ensure_ascii=False)
    return f"{note}\n{content}"
