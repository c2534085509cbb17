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

import contextlib
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
from sstools.agent.tools.datasets import audited_type
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


def _normal(call: ToolCall) -> str:
    """The call as it would run: its arguments as the tool validates them («"3"» is 3, a
    default spelled out is the default), so a repeat written differently is still a repeat."""
    tool = CATALOGUE.get(call["name"])
    args: dict[str, Any] = call["args"]
    if tool is not None:
        with contextlib.suppress(ValueError):
            args = tool.args_model.model_validate(args).model_dump(mode="json")
    return f"{call['name']}:{args_hash(args)}"


def _answered(turn: Sequence[AnyMessage]) -> list[tuple[ToolCall, ToolMessage]]:
    """Each answer of the turn with the call it answers: the latest call with its id made
    before it (a model may number its calls from zero in every reply, so ids repeat)."""
    made: dict[str, ToolCall] = {}
    pairs: list[tuple[ToolCall, ToolMessage]] = []
    for message in turn:
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                if call["id"]:
                    made[call["id"]] = {
                        "id": call["id"],
                        "name": call["name"],
                        "args": call["args"],
                    }
        elif isinstance(message, ToolMessage) and message.tool_call_id in made:
            pairs.append((made.pop(message.tool_call_id), message))
    return pairs


def answered_before(call: ToolCall, messages: Sequence[AnyMessage]) -> ToolMessage | None:
    """The answer to an identical call (same tool, same arguments as validated) earlier in
    this turn, whatever its id: the same call runs at most once a turn (issue 33 §10). An
    answer the model should retry (a call written wrong) does not count."""
    wanted = _normal(call)
    for earlier, message in _answered(this_turn(messages)):
        if message.response_metadata.get("retry") or _task_still_running(earlier, message):
            continue
        if _normal(earlier) == wanted:
            return message
    return None


_UNFINISHED = frozenset({"queued", "running"})


def _task_still_running(call: ToolCall, message: ToolMessage) -> bool:
    """A task's record read while it ran: reading it again later follows it, not a loop."""
    tool = CATALOGUE.get(call["name"])
    if tool is None or not tool.follows_task:
        return False
    with contextlib.suppress(ValueError, TypeError):
        answer = json.loads(str(message.content))
        return isinstance(answer, dict) and answer.get("status") in _UNFINISHED
    return False


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
    if args.get("env_id") not in (None, scope.env_id) and tool.name == "get_health_summary":
        return None  # another environment's dashboard: its ids are not the page's
    given: list[int] = []
    for field, object_type in _ID_FIELDS.items():
        value = args.get(field)
        if object_type is scope.object_type and value is not None:
            given.extend(value if isinstance(value, list) else [value])
    audited = audited_type(args.get("object_type"), scope) == scope.object_type.value
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
