"""Which tools the conversation has just used: the router keeps them for a follow-up message.

"Just" is this run and the one before it, so «а теперь для prod» after a deploy keeps
``deploy_dashboard`` although the words alone would not.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from sstools.agent.tools import CATALOGUE

RUNS_REMEMBERED = 2
# The artifact of a call's message when the call never ran (refused or cancelled); its status
# is "error" like a call that ran and failed, which the router still keeps.
NOT_RUN = "not_run"
# Marks (in response_metadata) a call that never ran because its card was closed (denied,
# expired, moved): the person saw it, so a follow-up («а что тогда предложишь?») keeps it.
CARD_SHOWN = "card_shown"


def _used(message: ToolMessage) -> bool:
    return message.artifact != NOT_RUN or bool(message.response_metadata.get(CARD_SHOWN))


def recently_used(messages: Sequence[BaseMessage]) -> set[str]:
    used: set[str] = set()
    runs = 0
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            runs += 1
            if runs == RUNS_REMEMBERED:
                break
        elif isinstance(message, ToolMessage) and message.name and _used(message):
            used.add(message.name)
    return used


def started_a_task(messages: Sequence[BaseMessage]) -> bool:
    """Whether a task-starting call of the conversation ran (then its status can be followed);
    a dry run of one (``dry_run: true``, its plan only) started nothing."""
    dry_runs = {
        call["id"]
        for message in messages
        if isinstance(message, AIMessage)
        for call in message.tool_calls
        if call["args"].get("dry_run") is True
    }
    return any(
        isinstance(message, ToolMessage)
        and message.name in CATALOGUE
        and CATALOGUE[message.name].starts_task
        and message.status != "error"
        and message.tool_call_id not in dry_runs
        for message in messages
    )
