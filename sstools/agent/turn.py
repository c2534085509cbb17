"""One turn of a conversation — from the person's message to the answer — as the server saw it.

A turn is the messages after the last ``HumanMessage``; a confirmation's resume continues it.
Everything here reads those messages, so it holds across runs and restarts (the checkpoint is
the record): which calls ran and how they ended (:func:`executed`), whether a call repeats one
already answered (:func:`answered_before`), how many tasks were started (:func:`task_starts`),
the server's own line under a model's answer (:func:`executed_line`), the last result in words
(:func:`last_result_in_words`), and whether a call names another object than the page's
(:func:`not_the_page_object`). Pure functions of the messages; no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, ToolMessage

from sstools.agent import texts
from sstools.agent.context import ObjectType
from sstools.agent.invocation import ToolCall, args_hash
from sstools.agent.offline.answers import render_content
from sstools.agent.routing.history import NOT_RUN
from sstools.agent.tools import CATALOGUE, CallScope, ToolKind, ToolSpec
from sstools.agent.tools.deploys import is_dry_run

# Outcomes of a call that ran and may have changed something (a write's timeout included).
_CHANGED = frozenset({"ok", "unknown"})
# How a call's message names its outcome: the executor's Outcome as the artifact (older
# checkpoints: only the message's status).
_BY_STATUS = {"success": "ok", "error": "error"}
# The id arguments of a call that acts on one object (dashboard_ids: several).
_ID_FIELDS = {"dashboard_id": ObjectType.dashboard, "dashboard_ids": ObjectType.dashboard}


def this_turn(messages: Sequence[AnyMessage]) -> list[AnyMessage]:
    """The messages after the person's last one."""
    start = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    return list(messages[start + 1 :])


def _calls(messages: Sequence[BaseMessage]) -> dict[str, ToolCall]:
    return {
        call["id"]: {"id": call["id"], "name": call["name"], "args": call["args"]}
        for message in messages
        if isinstance(message, AIMessage)
        for call in message.tool_calls
        if call["id"]
    }


@dataclass(frozen=True)
class Ran:
    """A call of this turn that ran, and how it ended (an executor ``Outcome`` value)."""

    tool: ToolSpec
    args: dict[str, Any]
    outcome: str
    message: ToolMessage

    @property
    def changed(self) -> bool:
        """A write that went through (or may have)."""
        return self.outcome in _CHANGED and _is_a_write(self.tool, self.args)

    @property
    def started_a_task(self) -> bool:
        return _starts_a_task(self.tool, self.args) and self.outcome == "ok"


def _starts_a_task(tool: ToolSpec, args: dict[str, Any]) -> bool:
    """A dry run (a write tool asked only for its plan) starts none."""
    if not tool.starts_task:
        return False
    try:
        return not is_dry_run(tool.args_model.model_validate(args))
    except ValueError:
        return True


def _is_a_write(tool: ToolSpec, args: dict[str, Any]) -> bool:
    try:
        return tool.kind_for(tool.args_model.model_validate(args)) is ToolKind.write
    except ValueError:
        return tool.kind is ToolKind.write


def executed(messages: Sequence[AnyMessage]) -> list[Ran]:
    """The calls of this turn that ran (not those refused, cancelled or skipped), in order."""
    turn = this_turn(messages)
    calls = _calls(turn)
    out = []
    for message in turn:
        if not isinstance(message, ToolMessage) or message.artifact == NOT_RUN:
            continue
        tool = CATALOGUE.get(message.name or "")
        call = calls.get(message.tool_call_id)
        if tool is None or call is None:
            continue
        outcome = message.artifact if isinstance(message.artifact, str) else None
        outcome = outcome or _BY_STATUS.get(message.status, "error")
        if outcome == "refused":  # the executor never sent it
            continue
        out.append(Ran(tool=tool, args=call["args"], outcome=outcome, message=message))
    return out


def task_starts(messages: Sequence[AnyMessage]) -> int:
    return sum(ran.started_a_task for ran in executed(messages))


def _same(one: ToolCall, other: ToolCall) -> bool:
    return one["name"] == other["name"] and args_hash(one["args"]) == args_hash(other["args"])


def answered_before(call: ToolCall, messages: Sequence[AnyMessage]) -> ToolMessage | None:
    """The answer to an identical call (same tool, same arguments) earlier in this turn; a
    task's status asked again while the task was still unfinished is a new question."""
    turn = this_turn(messages)
    calls = _calls(turn)
    for message in turn:
        retry = isinstance(message, ToolMessage) and message.response_metadata.get("retry")
        if isinstance(message, ToolMessage) and message.tool_call_id != call["id"] and not retry:
            earlier = calls.get(message.tool_call_id)
            if earlier is not None and _same(earlier, call) and not _still_running(message):
                return message
    return None


_UNFINISHED = ("queued", "running")


def _still_running(answer: ToolMessage) -> bool:
    """Whether the answer was a task record of a task not yet ended (its status may move)."""
    try:
        record = json.loads(str(answer.content))
    except ValueError:
        return False
    return isinstance(record, dict) and record.get("status") in _UNFINISHED


def repeats(calls: Sequence[ToolCall], messages: Sequence[AnyMessage]) -> bool:
    """Whether any of a new reply's calls repeats one already answered in this turn."""
    return any(answered_before(call, messages) is not None for call in calls)


def executed_line(ran: Sequence[Ran], *, skip_titles_in: str | None = None) -> str:
    """«Выполнено: Сводка состояния дашборда — готово. Изменений не было.»

    ``skip_titles_in``: an answer that names calls itself (the offline planner's): only the
    calls it does not name are listed, and nothing is said when it names them all.
    """
    listed = [one for one in ran if skip_titles_in is None or one.tool.title not in skip_titles_in]
    parts = []
    if listed:
        calls = [
            texts.EXECUTED_CALL.format(
                tool=one.tool.title,
                outcome=texts.EXECUTED_OUTCOMES.get(
                    "task" if one.started_a_task else one.outcome, one.outcome
                ),
            )
            for one in listed
        ]
        parts.append(texts.EXECUTED.format(calls="; ".join(calls)))
    if skip_titles_in is None and not any(one.changed for one in ran):
        parts.append(texts.NOTHING_CHANGED)
    return " ".join(parts)


def last_result_in_words(messages: Sequence[AnyMessage], env_id: str | None) -> str | None:
    """The last call that ran in this turn, rendered as the offline planner would say it."""
    ran = executed(messages)
    if not ran:
        return None
    last = ran[-1]
    answer = render_content(last.tool.name, str(last.message.content), last.args, env_id)
    return f"**{last.tool.title}**\\\n{answer}"  # a trailing backslash breaks the markdown line


def _person_wrote(number: int, messages: Sequence[AnyMessage]) -> bool:
    said = " ".join(str(m.content) for m in messages if isinstance(m, HumanMessage))
    return re.search(rf"(?<![0-9]){number}(?![0-9])", said) is not None


def not_the_page_object(
    tool: ToolSpec, args: dict[str, Any], scope: CallScope, messages: Sequence[AnyMessage]
) -> str | None:
    """Why a call on another object than the page's must not run, or None.

    On a dashboard's (dataset's) page the object's id comes from the page. A call naming
    another id runs only when the person wrote that id in the conversation; an id the model
    made up (or kept from a page seen before) is refused, with how to take the page's.
    """
    if scope.object_type is None or scope.object_id is None:
        return None
    given: list[int] = []
    for field, object_type in _ID_FIELDS.items():
        value = args.get(field)
        if object_type is scope.object_type and value is not None:
            given.extend(value if isinstance(value, list) else [value])
    audited = args.get("object_type", "dataset") == scope.object_type.value
    if tool.name == "superset_audit_permissions" and audited and args.get("object_id"):
        given.append(args["object_id"])
    for one in given:
        try:
            number = int(one)
        except (TypeError, ValueError):
            continue
        if number != scope.object_id and not _person_wrote(number, messages):
            kind = texts.PAGE_OBJECT_KINDS.get(scope.object_type.value, scope.object_type.value)
            return texts.NOT_THE_PAGE_OBJECT.format(
                tool=tool.title, kind=kind, given=number, page=scope.object_id
            )
    return None


def refusal(
    tool: ToolSpec,
    args: dict[str, Any],
    scope: CallScope,
    messages: Sequence[AnyMessage],
    task_starts_per_turn: int,
) -> str | None:
    """Why the turn does not let a call the checks cleared run: another object than the page's
    (:func:`not_the_page_object`), or one task start too many. None: it may run."""
    other = not_the_page_object(tool, args, scope, messages)
    if other is not None:
        return other
    if _starts_a_task(tool, args) and task_starts(messages) >= task_starts_per_turn:
        return texts.TASK_STARTS_PER_TURN.format(tool=tool.title, limit=task_starts_per_turn)
    return None
