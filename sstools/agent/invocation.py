"""The invocation check (AGTL-FR-005): may this call the model made run, and must a person confirm?

A pure function of the call, the caller's role, what was offered, the call's scope and the
configured environments — no I/O, so every refusal can be tested from a table:

1. the exact tool name (a case or Unicode look-alike is unknown, never "the nearest");
2. the role the tool needs at all, then the arguments, then the role this call needs
   (``superset_execute_sql`` is a write for DML);
3. availability in this context (hidden by object type or a missing environment);
4. the environment the call acts on is configured;
5. the guardrail decision: :class:`Cleared` runs at once, :class:`NeedsConfirmation` gets a card.
   A write asked only for its plan (``dry_run: true``) is a read here: its kind is decided per
   call, so it is cleared without a card (unless every read asks one) after the same role check.

Also the shapes a call takes in the checkpointed graph state (plain-value TypedDicts, which the
checkpointer stores as it stored the untyped dicts before them).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict

from pydantic import ValidationError

from sstools.agent import explain
from sstools.agent.guardrails import GuardrailDecision, decide
from sstools.agent.selection import HiddenBecause, Selection
from sstools.agent.tools import CATALOGUE, CallScope, ToolArgs, ToolSpec
from sstools.auth.roles import Role
from sstools.environments import EnvironmentRegistry


class ToolCall(TypedDict):
    """One call as the model made it (``args`` made storable)."""

    id: str
    name: str
    args: dict[str, Any]
    # Set when a person changed its arguments on the card: what changed, in words (the model
    # is told with the call's result).
    edited: NotRequired[str]


class CardRequest(TypedDict):
    """What a paused run asks a person (the interrupt's value): the call, its card, its binding."""

    call: ToolCall
    decision: dict[str, Any]  # GuardrailDecision as JSON: decoded where it is read
    confirmation_id: str
    args_hash: str


class PendingCall(CardRequest):
    """The call being handled: checked, maybe waiting for a decision, then run."""

    approved: bool


class ConfirmationAnswer(TypedDict):
    """What a paused run is resumed with; it must name this card and these arguments."""

    decision: Literal["approve", "deny", "expired", "target_moved", "edit"]
    confirmation_id: str
    args_hash: str
    reason: NotRequired[str | None]  # the person's words with a denial: the model reads them
    # With an edit: the card's call with the person's changes (checked by the server against
    # what the card offered), and those changes in words.
    edited_args: NotRequired[dict[str, Any]]
    changes: NotRequired[str]


@dataclass(frozen=True)
class Refused:
    """The call does not run. ``required_role`` is set when the refusal is a permission denial."""

    message: str
    required_role: Role | None = None


@dataclass(frozen=True)
class Allowed:
    """The call may run: its tool, its checked arguments and the guardrail's decision."""

    tool: ToolSpec
    args: ToolArgs
    decision: GuardrailDecision


class NeedsConfirmation(Allowed):
    """It runs once a person confirms it on a card."""


class Cleared(Allowed):
    """It runs at once."""


Verdict = Refused | NeedsConfirmation | Cleared


def check_call(
    call: ToolCall,
    role: Role,
    selection: Selection,
    scope: CallScope,
    environments: EnvironmentRegistry,
    *,
    confirm_reads: bool,
) -> Verdict:
    tool = CATALOGUE.get(call["name"])
    if tool is None:
        return Refused(explain.unknown_tool(call["name"], selection.offered))
    # The role first: a tool the role may never use is denied whatever its arguments.
    if not role.allows(tool.min_role):
        return _denied(tool, tool.min_role, role)
    try:
        args = tool.args_model.model_validate(call["args"])
    except ValidationError as exc:
        problems = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        return Refused(explain.bad_arguments(tool.title, problems))
    required = tool.required_role(args)  # per call: DML needs more than a SELECT
    if not role.allows(required):
        return _denied(tool, required, role)
    hidden = selection.hidden.get(tool.name)
    if hidden is not None and hidden.reason is not HiddenBecause.role:
        return Refused(explain.not_offered(tool.title, hidden.detail))
    env_id = tool.environment(args, scope)
    if env_id is not None and env_id not in environments:
        return Refused(explain.unknown_environment(env_id))
    decision = decide(tool, args, env_id, environments, confirm_reads=confirm_reads)
    if decision.needs_confirmation:
        return NeedsConfirmation(tool, args, decision)
    return Cleared(tool, args, decision)


def _denied(tool: ToolSpec, required: Role, actual: Role) -> Refused:
    words = explain.permission_denied(
        tool.title, [required.value], actual.value, write_only=actual.allows(tool.min_role)
    )
    return Refused(words, required_role=required)


def args_hash(args: dict[str, Any]) -> str:
    """Binds a confirmation to the exact arguments it was shown with."""
    return hashlib.sha256(json.dumps(args, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def storable(value: Any) -> Any:
    """Model output as the checkpointer can store it: integers beyond 64 bits become strings."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**63 else str(value)
    if isinstance(value, dict):
        return {str(key): storable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [storable(item) for item in value]
    return value
