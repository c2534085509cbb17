"""The graph's ``confirm`` node: nothing but ``interrupt()`` and reading the answer it resumes with.

LangGraph re-runs a node from its start on resume, so nothing with a side effect sits before the
interrupt. An approval opens a new stretch of the turn; an edit sends the edited call back to be
assessed; a denial, an expiry or an answer for another card or other arguments cancels the call
and every one queued after it.
"""

from __future__ import annotations

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from sstools.agent import explain, step_messages
from sstools.agent.explain import Declined
from sstools.agent.graph_state import AgentState
from sstools.agent.invocation import CardRequest, ToolCall, args_hash
from sstools.agent.run.context import RunContext
from sstools.agent.tools import CATALOGUE


def confirm(state: AgentState, runtime: Runtime[RunContext]) -> AgentState:
    """The card: pause until a person decides, then accept exactly this card's answer."""
    current = state["current"]
    assert current is not None
    request: CardRequest = {
        "confirmation_id": current["confirmation_id"],
        "call": current["call"],
        "decision": current["decision"],
        "args_hash": current["args_hash"],
    }
    answer = interrupt(request)
    call = current["call"]
    tool = CATALOGUE[call["name"]]
    # LangGraph hands back whatever resume value it got: accept exactly this card's answer.
    valid = (
        isinstance(answer, dict)
        and answer.get("decision") in ("approve", "deny", "expired", "target_moved", "edit")
        and answer.get("confirmation_id") == current["confirmation_id"]
    )
    why: Declined
    if valid and answer.get("args_hash") != args_hash(call["args"]):
        why = "mismatch"
    elif valid and answer["decision"] == "edit" and isinstance(answer.get("edited_args"), dict):
        # The person changed the card: the edited call is checked and planned again from the
        # start (assess), and gets a card of its own; nothing runs from this one. The history
        # holds the call as it will run (the turn's bookkeeping reads it there); the model is
        # told of every change with its result.
        changes = [said for said in (call.get("edited"), answer.get("changes")) if said]
        edited: ToolCall = {**call, "args": answer["edited_args"], "edited": "; ".join(changes)}
        return {
            "messages": step_messages.with_edited_call(state.get("messages", []), edited),
            "queue": [edited, *state.get("queue", [])],
            "current": None,
            "emit": [],
            "halted": False,
        }
    elif valid and answer["decision"] == "approve":
        # A person's decision opens a new stretch of the turn: its set is decided again at
        # the next model call (a task it starts can be followed), then kept as before.
        approved: AgentState = {"current": {**current, "approved": True}, "turn": None}
        return approved | {"emit": [], "halted": False}
    elif valid and answer["decision"] == "expired":
        why = "expired"
    elif valid and answer["decision"] == "target_moved":
        why = "target_moved"  # a second approval found another plan: nobody denied it
    elif valid:
        why = "deny"
    else:
        why = "mismatch"
    not_run = [call, *state.get("queue", [])]
    said = answer.get("reason") if valid and why == "deny" else None
    emit, messages = step_messages.cancellation(
        tool,
        current["confirmation_id"],
        explain.cancelled(tool.title, why),
        not_run,
        runtime.context.run_id,
        said=said if isinstance(said, str) else None,
    )
    return {"messages": messages, "queue": [], "current": None, "halted": True, "emit": emit}
