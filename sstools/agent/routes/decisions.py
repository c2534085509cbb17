"""``POST /api/agent/conversations/{id}/confirmations/{confirmation_id}``: a person's answer to
a card — approve (for a stage that needs two people, a request to a second one), deny with an
optional reason, or edit the arguments the card offers (the call is planned again)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field, StringConstraints

from sstools.agent import texts
from sstools.agent.card.build import may_approve_similar
from sstools.agent.card.decode import CardUnreadable, shown_card
from sstools.agent.card.edits import apply_edit
from sstools.agent.events import ConfirmRequired
from sstools.agent.routes.deps import ConversationDep, RuntimeDep, TokenDep, conflict
from sstools.agent.run.approvals import ask_second_if_needed
from sstools.agent.run.runtime import AgentRuntime, AlreadyDecided, Busy
from sstools.agent.tools import CATALOGUE, ToolSpec
from sstools.http.approvals import one_line
from sstools.http.audit_trail import AuditTrail
from sstools.http.auth import CurrentUser
from sstools.http.deps import ServicesDep, SessionDep
from sstools.http.errors import field_error
from sstools.http.services import Services
from sstools.storage.confirmations import ConfirmationStatus
from sstools.storage.models import Confirmation

router = APIRouter(prefix="/api/agent", tags=["agent"])
_T = TypeVar("_T")


class DecisionRequest(BaseModel):
    decision: Literal["approve", "deny", "edit"]
    # Why, with a denial: the model reads it (to propose something else) and the audit keeps it.
    reason: Annotated[str, StringConstraints(strip_whitespace=True, max_length=500)] | None = None
    # With an edit: the arguments the card offers to change, with their new values.
    args: dict[str, Any] | None = Field(default=None, max_length=10)
    # With an approval of a dev write: approve the same tool, environment and kind without a
    # card for the rest of the conversation («одобрять похожие до конца сеанса»).
    similar: bool = False


class DecisionResponse(BaseModel):
    status: ConfirmationStatus
    run_id: str | None  # None while the write waits for a second person (awaiting_second)


@router.post("/conversations/{conversation_id}/confirmations/{confirmation_id}")
async def decide(
    confirmation_id: str,
    body: DecisionRequest,
    conversation: ConversationDep,
    session: SessionDep,
    services: ServicesDep,
    runtime: RuntimeDep,
    user: CurrentUser,
    token: TokenDep,
) -> DecisionResponse:
    confirmation = await session.get(Confirmation, confirmation_id)
    if (
        confirmation is None
        or confirmation.conversation_id != conversation.id
        or confirmation.requester_id != user.uid  # their account's, not only their name's
    ):
        raise HTTPException(404, texts.CONFIRMATION_NOT_FOUND)
    if confirmation.status != ConfirmationStatus.pending:
        raise HTTPException(409, texts.CONFIRMATION_DECIDED[confirmation.status])
    reason = one_line(body.reason)
    if body.decision == "edit":
        return await _edit(confirmation, body.args or {}, runtime, session, user, token)
    if body.similar and not _may_approve_similar(confirmation, body.decision, services):
        raise field_error("similar", texts.SIMILAR_ONLY_DEV)
    if body.decision == "approve" and await _resumed(
        ask_second_if_needed(confirmation, services, runtime, session, user)
    ):  # the stage needs two people: nothing runs until the second one approves
        return DecisionResponse(status=ConfirmationStatus.awaiting_second, run_id=None)
    run_id = await _resumed(
        runtime.decide(confirmation, body.decision, user, token, reason, similar=body.similar)
    )
    status = (
        ConfirmationStatus.approved if body.decision == "approve" else ConfirmationStatus.denied
    )
    await _audit_decided(
        session,
        confirmation,
        user,
        status,
        reason=reason if status is ConfirmationStatus.denied else None,
        similar=body.similar or None,
    )
    return DecisionResponse(status=status, run_id=run_id)


async def _audit_decided(
    session: SessionDep,
    confirmation: Confirmation,
    user: CurrentUser,
    status: ConfirmationStatus,
    **detail: Any,
) -> None:
    """The card's ``confirmation_decided`` row: who decided it, how, and ``detail``."""
    await AuditTrail(session, user).record(
        "confirmation_decided",
        status.value,
        conversation_id=confirmation.conversation_id,
        confirmation_id=confirmation.id,
        **detail,
    )


async def _resumed(resuming: Awaitable[_T]) -> _T:
    """What the answer comes to, or a 409 in words: decided, expired, or the chat is busy."""
    try:
        return await resuming
    except (AlreadyDecided, Busy) as exc:
        raise conflict(exc) from exc


def _may_approve_similar(confirmation: Confirmation, decision: str, services: Services) -> bool:
    """Only an approval of a plan-bound write to a dev environment that one person approves."""
    card, tool = _card(confirmation)
    env = services.environments.get(confirmation.env_id) if confirmation.env_id else None
    return (
        decision == "approve"
        and env is not None
        and may_approve_similar(tool, card.decision.kind, env.stage)  # the stage now
        and services.approvals.needed(env.stage) == 1
    )


def _card(confirmation: Confirmation) -> tuple[ConfirmRequired, ToolSpec]:
    """The card as it was shown, and its tool; a card of a tool gone since (or of an older
    shape) can no longer be decided this way: 409."""
    try:
        card = shown_card(confirmation)
        return card, CATALOGUE[card.tool]
    except (CardUnreadable, KeyError) as exc:
        raise HTTPException(409, texts.CONFIRMATION_UNDECIDABLE) from exc


async def _edit(
    confirmation: Confirmation,
    given: dict[str, Any],
    runtime: AgentRuntime,
    session: SessionDep,
    user: CurrentUser,
    token: str,
) -> DecisionResponse:
    """The person changed the card: checked against what it offered (else 422 naming the
    field), then the run resumes with the edited call, which gets a plan and a card of its own."""
    card, tool = _card(confirmation)
    edited = apply_edit(tool, card.args, card.decision.edits, given)
    run_id = await _resumed(runtime.edit(confirmation, edited, user, token))
    await _audit_decided(
        session, confirmation, user, ConfirmationStatus.edited, reason=edited.changes
    )
    return DecisionResponse(status=ConfirmationStatus.edited, run_id=run_id)
