"""Who acts in a run, and with which token: given to every step, never checkpointed."""

from __future__ import annotations

from dataclasses import dataclass

from sstools.agent.tools import ToolKind
from sstools.auth.roles import Role


@dataclass(frozen=True)
class RunContext:
    """Per run, never checkpointed: who acts, with which token, what they approved ahead.

    ``role`` is None when nobody acts — an expired confirmation winding its run down — and then
    a node that would need it fails rather than guess one.
    """

    username: str
    user_id: str | None  # the account's uid (users.uid): whose the cards of this run are
    role: Role | None
    token: str
    run_id: str
    # (tool, environment, kind) the person approved for similar calls in this conversation
    # (dev only: the graph checks the stage again before it skips a card).
    approved_similar: frozenset[tuple[str, str, str]] = frozenset()

    def approved(self, tool: str, env_id: str | None, kind: ToolKind) -> bool:
        """Whether the person approved this tool, environment and kind for similar calls."""
        return env_id is not None and (tool, env_id, kind.value) in self.approved_similar

    def acting_role(self) -> Role:
        if self.role is None:
            raise RuntimeError("a run resumed without a person acting reached a step that acts")
        return self.role
