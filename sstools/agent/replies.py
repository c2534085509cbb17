"""What the graph makes of a model's reply when the model did not behave.

- a call written as text: taken as the call (:func:`as_calls`), or the model is asked once more
  with a short English note of what was wrong (:func:`ask_again`); the raw JSON is never shown;
- a call repeated within the turn: not run again, the model is told to answer (:func:`repeated`);
- more calls in one reply than the cap: the rest refused, in words the model reads
  (:func:`over_the_cap`);
- all of it decided by :func:`settle`;
- the answer itself (:func:`final_answer`): an empty one filled from the last result, and every
  answer under the server's own line of what ran, a claimed change that did not happen marked.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import structlog
from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
from pydantic import BaseModel

from sstools.agent import explain, text_calls, texts
from sstools.agent import turn as this_turn
from sstools.agent.claims_check import claims_a_change
from sstools.agent.graph_state import TurnState
from sstools.agent.invocation import ToolCall, storable
from sstools.agent.routing.history import NOT_RUN
from sstools.agent.selection import HiddenBecause, Selection
from sstools.agent.text_calls import WrittenCalls
from sstools.agent.tools import CATALOGUE

_log = structlog.get_logger("sstools.agent")
ARGUMENT_MODELS: Mapping[str, type[BaseModel]] = {
    name: tool.args_model for name, tool in CATALOGUE.items()
}
_TOOL_NAME_FALLBACK = "unknown_tool"
_REPEATED = (
    "Not run again: this exact call was already answered in this turn (see its result above). "
    "Answer the person now from that result, without calling tools."
)
_WRITTEN_WRONG = (
    "Your reply wrote a tool call as text, and it cannot be used: {problems}. "
    "Call an offered tool through tool calling with valid arguments, or answer in words."
)


def _not_run(call_id: str, name: str, content: str, *, retry: bool = False) -> ToolMessage:
    # ``retry``: never assessed (over the cap, or written wrongly): the same call may come again.
    return ToolMessage(
        content=content,
        tool_call_id=call_id,
        name=name,
        status="error",
        artifact=NOT_RUN,
        response_metadata={"retry": True} if retry else {},
    )


def _call_id() -> str:
    return f"call_{uuid.uuid4().hex[:12]}"


def as_calls(written: WrittenCalls, reply: AIMessage) -> AIMessage:
    """The reply as the calls it wrote, its prose kept (the JSON is not)."""
    calls = [
        {
            "name": call.name,
            "args": storable(call.arguments or {}),
            "id": _call_id(),
            "type": "tool_call",
        }
        for call in written.calls
    ]
    return AIMessage(content=written.prose, tool_calls=calls, id=reply.id)


def ask_again(written: WrittenCalls, problems: Sequence[str]) -> list[AnyMessage]:
    """The unusable written calls as calls that did not run, each answered with what was
    wrong: the history stays well-formed, and the model learns how to call."""
    note = _WRITTEN_WRONG.format(problems="; ".join(problems))
    calls: list[ToolCall] = [
        {
            "id": _call_id(),
            "name": call.name if call.name in CATALOGUE else _TOOL_NAME_FALLBACK,
            "args": storable(call.arguments or {}),
        }
        for call in written.calls
    ]
    answers = [_not_run(call["id"], call["name"], note, retry=True) for call in calls]
    asked = [{**call, "type": "tool_call"} for call in calls]
    return [AIMessage(content="", tool_calls=asked), *answers]


def repeated(call: ToolCall) -> ToolMessage:
    return _not_run(call["id"], call["name"], _REPEATED)


def over_the_cap(calls: Sequence[ToolCall], limit: int) -> list[ToolMessage]:
    """Calls past the first ``limit`` of one reply: none runs, each says why."""
    return [
        _not_run(
            call["id"],
            call["name"],
            json.dumps(
                {
                    "error": texts.CALLS_PER_REPLY.format(
                        tool=CATALOGUE[call["name"]].title
                        if call["name"] in CATALOGUE
                        else call["name"],
                        limit=limit,
                    )
                },
                ensure_ascii=False,
            ),
            retry=True,
        )
        for call in calls
    ]


def final_answer(
    words: str,
    messages: Sequence[AnyMessage],
    env_id: str | None,
    *,
    offline: bool,
    check_claims: bool,
) -> str:
    """The answer a person reads: ``words`` (or the last result in words, or that the model
    gave no answer), then what ran in this turn as the server saw it.

    The offline planner's answers are the server's own rendering of each result under its
    title: only calls they do not name are listed, and no claim is checked.
    """
    ran = this_turn.executed(messages)
    text = words.strip()
    claimed = check_claims and not offline and claims_a_change(text)
    if not text:
        text = this_turn.last_result_in_words(messages, env_id) or texts.NO_MODEL_ANSWER
    line = this_turn.executed_line(ran, skip_titles_in=text if offline else None)
    if claimed and not any(one.changed for one in ran):
        line = f"{texts.UNFOUNDED_CLAIM}\n\n{line}"
    return f"{text}\n\n{line}" if line else text


@dataclass(frozen=True)
class Settled:
    """What a model's reply comes to: messages for the history, the calls to run — or the
    words of the turn's answer (``own``: the model's, so its claims are checked)."""

    turn: TurnState
    added: list[AnyMessage] = field(default_factory=list)
    queue: list[ToolCall] = field(default_factory=list)
    said: str = ""  # the model's words beside its calls
    again: bool = False  # ask the model once more before anything runs
    answer: str | None = None
    own: bool = False


def settle(
    reply: AIMessage,
    messages: Sequence[AnyMessage],
    turn: TurnState,
    selection: Selection,
    calls_per_reply: int,
) -> Settled:
    """A call written as text taken as the call (or asked again, once); a call repeated within
    the turn answered with the result in hand the second time; calls past the cap refused."""
    if not reply.tool_calls and (written := text_calls.read_calls(reply.text)) is not None:
        denied = [
            name for name, why in selection.hidden.items() if why.reason is HiddenBecause.role
        ]
        wrong = text_calls.problems(written, selection.offered, ARGUMENT_MODELS, checked=denied)
        if wrong and not turn["text_retry"]:
            _log.warning("model wrote an unusable call as text", problems=wrong)
            retry: TurnState = {**turn, "text_retry": True}
            return Settled(turn=retry, added=ask_again(written, wrong), again=True)
        if wrong:
            return Settled(turn=turn, answer=explain.model_reply_unusable())
        reply = as_calls(written, reply)
    queue: list[ToolCall] = [
        {"id": call["id"] or _call_id(), "name": call["name"], "args": call["args"]}
        for call in reply.tool_calls
    ]
    if not queue:
        return Settled(turn=turn, answer=reply.text, own=True)
    reply.tool_calls = [  # ids as queued
        {"id": call["id"], "name": call["name"], "args": call["args"], "type": "tool_call"}
        for call in queue
    ]
    if this_turn.repeats(queue, messages):
        if turn["loop_nudged"]:  # told once that it has the answer: answer with it
            _log.warning("model repeats a call already answered")
            return Settled(turn=turn, added=[reply, *map(repeated, queue)], answer="")
        turn = {**turn, "loop_nudged": True}
    queue, over = queue[:calls_per_reply], queue[calls_per_reply:]
    if over:
        _log.warning("model reply over the call cap", calls=len(over))
    added: list[AnyMessage] = [reply, *over_the_cap(over, calls_per_reply)]
    return Settled(turn=turn, added=added, queue=queue, said=reply.text)
