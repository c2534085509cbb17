"""Where the agent graph goes after each step (its conditional edges), read off the state."""

from __future__ import annotations

from langgraph.graph import END

from sstools.agent.graph_state import AgentState


def after_agent(state: AgentState) -> str:
    if state.get("queue"):
        return "assess"
    return "agent" if state.get("again") else END


def after_assess(state: AgentState) -> str:
    current = state.get("current")
    if current is not None:
        return "tools" if current["approved"] else "confirm"
    return "assess" if state.get("queue") else "agent"


def after_confirm(state: AgentState) -> str:
    if state.get("halted"):
        return END
    return "tools" if state.get("current") is not None else "assess"  # assess: an edit


def after_tools(state: AgentState) -> str:
    if state.get("halted"):
        return END
    return "assess" if state.get("queue") else "agent"
