"""The agent's HTTP face: ``/api/agent`` (conversations, messages, the event stream, offered
tools), a person's answer to a card, a person's 👍 / 👎 on an answer, and ``/api/approvals``
(writes waiting for a second person).
The top of the agent: nothing else in it imports this package."""

from __future__ import annotations

from sstools.agent.routes import approvals, conversations, decisions, feedback

ROUTERS = (conversations.router, decisions.router, feedback.router, approvals.router)

__all__ = ["ROUTERS"]
