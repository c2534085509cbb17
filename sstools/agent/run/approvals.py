"""Approval by stage: how many people approve a write, and the second person's part.

A write to a stage that needs two people (``SSTOOLS_APPROVALS_PROD=2``, the default) is not run
by its requester's «Подтвердить»: the card becomes a request (``awaiting_second``) that a second
person — never the requester, with the role the call needs (``ToolSpec.required_role``: engineer
for deploys, migrations and git writes, admin for restores and backups) — approves or denies
within ``SSTOOLS_SECOND_APPROVAL_TTL_S``. At the second approval the plan is made again and must
have the digest the card showed; then the paused run resumes in the requester's conversation,
acting as the requester, by :meth:`AgentRuntime.resume`, the path every decision takes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy.ext.asyncio import AsyncSession

from sstools.agent.card.decode import shown_card
from sstools.agent.events import ApprovalWaiting
from sstools.agent.executor import ToolExecutor
from sstools.agent.graph_state import AgentState, Page
from sstools.agent.run.decisions import AlreadyDecided, Resolution
from sstools.agent.run.runtime import AgentRuntime
from sstools.agent.tools import CATALOGUE, ToolKind
from sstools.auth.roles import Role
from sstools.auth.tokens import Caller, Principal
from sstools.http.audit_trail import AuditTrail
from sstools.http.services import Services
from sstools.metrics import count_approval
from sstools.storage import confirmations
from sstools.storage.confirmations import ConfirmationStatus
from sstools.storage.models import Confirmation


def approval_link(confirmation_id: str) -> str:
    """The request's own page, to share with whoever may approve it."""
    return f"/approvals/{confirmation_id}"


def card_audit(confirmation: Confirmation) -> dict[str, str | None]:
    """A request's card as its audit rows name it: environment, conversation, card and tool."""
    return {
        "env_id": confirmation.env_id,
        "conversation_id": confirmation.conversation_id,
        "confirmation_id": confirmation.id,
        "tool": confirmation.tool,
    }


def approver_role(confirmation: Confirmation) -> Role:
    """The role the second person needs: the one the call itself needs, as the invocation check
    reads it (the tool's role for these arguments)."""
    tool = CATALOGUE.get(confirmation.tool)
    if tool is None:
        return Role.admin
    args = confirmation.event.get("args") if isinstance(confirmation.event, dict) else None
    try:
        return tool.required_role(tool.args_model.model_validate(args or {}))
    except ValueError:
        return max(tool.min_role, Role.engineer, key=lambda role: role.rank)


async def ask_second(
    runtime: AgentRuntime,
    confirmation: Confirmation,
    user: Principal,
    ttl_s: float,
    token_version: int | None = None,
) -> ApprovalWaiting:
    """The requester's approval: the card waits for a second person (once; a second call, a
    decision or the expiry that won first is :class:`AlreadyDecided`). Nothing runs."""
    now = runtime.clock()
    if confirmation.expires_at <= now:
        await runtime.expire_stale(confirmation.conversation_id)
        raise AlreadyDecided(confirmation.id, expired=True)
    if not await runtime.still_waiting(confirmation):
        raise AlreadyDecided(confirmation.id)
    role = approver_role(confirmation)
    expires_at = now + timedelta(seconds=ttl_s)
    async with runtime.sessions() as session:
        won = await confirmations.ask_second(
            session,
            confirmation.id,
            by=user.username,
            approver_role=role.value,
            now=now,
            expires_at=expires_at,
            token_version=token_version,
        )
    if not won:
        raise AlreadyDecided(confirmation.id)
    count_approval(confirmations.card_stage(confirmation), "first_approved")
    waiting = ApprovalWaiting(
        confirmation_id=confirmation.id,
        call_id=confirmation.call_id,
        by=user.username,
        at=now,
        approver_role=role.value,
        expires_at=expires_at,
        link=approval_link(confirmation.id),
    )
    # In the conversation's log: the requester's card shows it live and after a reload.
    await runtime.events.append(confirmation.conversation_id, waiting)
    return waiting


@dataclass(frozen=True)
class Replanned:
    """The plan made again for a waiting request: its digest now, and the card's."""

    approved: str | None
    current: str | None
    problem: str | None = None

    @property
    def moved(self) -> bool:
        return self.approved is not None and self.current != self.approved


async def ask_second_if_needed(
    confirmation: Confirmation,
    services: Services,
    runtime: AgentRuntime,
    session: AsyncSession,
    user: Caller,
) -> bool:
    """The requester's «Подтвердить» on a write whose stage needs two people: the card waits for
    a second person instead (True); False when one approval is enough.

    Raises:
        AlreadyDecided: the card was decided or expired meanwhile.
    """
    needed = services.approvals.needed_for(services.environments, confirmation.env_id)
    decision = shown_card(confirmation).decision
    if needed < 2 or decision.kind is not ToolKind.write:  # a read (SSTOOLS_HITL=all): one
        return False
    waiting = await ask_second(
        runtime,
        confirmation,
        user,
        services.settings.second_approval_ttl_s,
        token_version=user.token_version,
    )
    await AuditTrail(session, user).record(
        "approval_requested",
        "awaiting_second",
        **card_audit(confirmation),
        approver_role=waiting.approver_role,
    )
    return True


async def replan(
    runtime: AgentRuntime, confirmation: Confirmation, executor: ToolExecutor, token: str
) -> Replanned:
    """The paused call's preview asked again (a read, with ``token``): a write that applies a plan
    (deploy, migration, restore, rollback) must still have the digest its card showed."""
    approved = shown_card(confirmation).decision.digest
    tool = CATALOGUE.get(confirmation.tool)
    if approved is None or tool is None or tool.preview is None:
        return Replanned(approved=None, current=None)  # nothing was bound to a plan
    state = await runtime.graph.aget_state(
        {"configurable": {"thread_id": confirmation.conversation_id}}
    )
    current = state.values.get("current")
    if not current:
        return Replanned(approved=approved, current=None)
    args = tool.args_model.model_validate(current["call"]["args"])
    scope = Page.of(cast(AgentState, state.values)).scope
    preview = await executor.preview(tool.preview(args, scope), token)
    return Replanned(
        approved=approved,
        current=preview.plan.digest if preview.plan else None,
        problem=None if preview.answer else preview.problem or "",
    )


async def decide_second(
    runtime: AgentRuntime,
    confirmation: Confirmation,
    status: ConfirmationStatus,
    *,
    by: Principal,
    requester: Caller,
    requester_token: str,
    reason: str | None,
) -> str:
    """The second person's decision (approved, denied, or target_moved when the plan moved),
    recorded once; the run resumes in the requester's conversation, acting as the requester."""

    async def once(session: AsyncSession, now: datetime) -> bool:
        return await confirmations.decide_second(
            session, confirmation.id, status, by=by.username, now=now, reason=reason
        )

    resolution = Resolution(
        status=status,
        acting=requester,
        token=requester_token,
        reason=None if status is ConfirmationStatus.approved else reason,
        by=by.username,
        first_by=confirmation.first_approved_by,
    )
    return await runtime.resume(confirmation, resolution, once)
