"""``/api/approvals``: writes waiting for a second person, and that person's decision.

A request is a confirmation its requester approved where the stage needs two people
(:mod:`sstools.agent.run.approvals`). Any signed-in user may read one by its link (the page
``/approvals/<id>`` shows it); the list holds those the caller may approve and their own. Only a
person with the role the call needs, who is not the requester, decides: approve re-makes the plan
first and refuses (409, nothing written) when its digest is no longer the approved one.
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.agent.routes import held_writes
from sstools.agent.routes.approval_views import ApprovalView, held_view, view
from sstools.agent.routes.deps import ExecutorDep, RuntimeDep, TokenDep, conflict
from sstools.agent.run import approvals
from sstools.agent.run.runtime import AgentRuntime, AlreadyDecided, Busy
from sstools.agent.texts import answers as answer_texts
from sstools.agent.texts import approvals as words
from sstools.auth.tokens import Caller, issue_token
from sstools.http.approvals import (
    Bar,
    DecisionBody,
    RequesterLost,
    approver_role,
    bar,
    may_decide,
    one_line,
    requester_now,
)
from sstools.http.audit_trail import AuditTrail
from sstools.http.auth import CurrentUser
from sstools.http.deps import ServicesDep, SessionDep
from sstools.http.services import Services
from sstools.storage import confirmations as stored
from sstools.storage.confirmations import ConfirmationStatus
from sstools.storage.models import Confirmation

router = APIRouter(prefix="/api/approvals", tags=["agent"])


# The requester's token the resumed run acts with: long enough for the write to run.
_REQUESTER_TOKEN_TTL_S = 3600


class ApprovalList(BaseModel):
    approvals: list[ApprovalView]
    can_approve: int  # how many of them the caller may decide (the header's badge)


class ApprovalDecided(BaseModel):
    status: ConfirmationStatus
    run_id: str | None = None  # the requester's run resumed (an agent card's request)
    task_id: str | None = None  # the write's task (a held write of the domain API)


async def _expire_due(runtime: AgentRuntime, rows: list[Confirmation]) -> bool:
    """Requests past their expiry are expired (their runs cancelled); whether any was."""
    now = runtime.clock()
    due = {row.conversation_id for row in rows if row.expires_at <= now}
    for conversation_id in due:
        await runtime.expire_stale(conversation_id)
    return bool(due)


async def _request(session: AsyncSession, confirmation_id: str) -> Confirmation:
    confirmation = await session.get(Confirmation, confirmation_id)
    if confirmation is None or confirmation.first_approved_by is None:
        raise HTTPException(404, words.APPROVAL_NOT_FOUND)  # a card nobody asked a second for
    return confirmation


@router.get("")
async def list_approvals(
    session: SessionDep, services: ServicesDep, runtime: RuntimeDep, user: CurrentUser
) -> ApprovalList:
    """Requests waiting for a second person that the caller may decide, and the caller's own."""
    rows = await stored.awaiting_second(session)
    if await _expire_due(runtime, rows):
        session.expire_all()
        rows = await stored.awaiting_second(session)
    shown = [
        view(row, user, services)
        for row in rows
        if stored.requested_by(row, user.uid) or may_decide(row, user)
    ]
    shown += [
        held_view(row, user, services)
        for row in await held_writes.waiting(session, services)
        if held_writes.is_requester(row, user) or may_decide(row, user)
    ]
    return ApprovalList(approvals=shown, can_approve=sum(one.can_approve for one in shown))


@router.get("/{confirmation_id}", responses={404: {"description": "no such request"}})
async def get_approval(
    confirmation_id: str,
    session: SessionDep,
    services: ServicesDep,
    runtime: RuntimeDep,
    user: CurrentUser,
) -> ApprovalView:
    """One request, by its link: any signed-in user may see where it stands."""
    held = await held_writes.find(session, services, confirmation_id)
    if held is not None:
        return held_view(held, user, services)
    confirmation = await _request(session, confirmation_id)
    if await _expire_due(runtime, [confirmation]):
        await session.refresh(confirmation)
    return view(confirmation, user, services)


async def _requester(
    session: AsyncSession, services: Services, confirmation: Confirmation
) -> tuple[Caller, str]:
    """The requester as they are now, and a token of theirs for the resumed run: it acts in
    their conversation with their rights, as their own approval would have. Their account, by
    its id: a removed account's request runs in nobody's name, an account re-added under the
    same name included."""
    requester = await requester_now(session, confirmation)
    if requester is RequesterLost.gone:
        raise HTTPException(409, words.REQUESTER_GONE)
    if requester is RequesterLost.signed_out:
        raise HTTPException(409, words.REQUESTER_SIGNED_OUT)
    token = issue_token(
        services.settings,
        requester,
        version=requester.token_version,
        ttl_s=min(_REQUESTER_TOKEN_TTL_S, services.settings.jwt_ttl_s),
    )
    return requester, token


def _refuse(confirmation: Confirmation, user: Caller, decision: str) -> None:
    """Who may not decide, and a request that is no longer waiting: 4xx in words. The requester
    may withdraw their own request (deny it), never approve it; an account of the requester's
    name that is not theirs may do neither."""
    barred = bar(user, confirmation)
    if barred is Bar.namesake:
        raise HTTPException(403, words.NAMESAKE_REQUEST)
    if barred is Bar.own:
        if decision == "approve":
            raise HTTPException(409, words.OWN_REQUEST)
        if confirmation.status == ConfirmationStatus.awaiting_second:
            return
    role = approver_role(confirmation)
    if not user.role.allows(role):  # the requester's own closed request too
        raise HTTPException(
            403,
            words.ROLE_NEEDED.format(
                role=answer_texts.ROLE_NAMES[role.value],
                yours=answer_texts.ROLE_NAMES[user.role.value],
            ),
        )
    if confirmation.status != ConfirmationStatus.awaiting_second:
        raise HTTPException(409, words.APPROVAL_CLOSED[confirmation.status])


@router.post(
    "/{confirmation_id}",
    responses={
        403: {
            "description": "the caller's role may not approve this change, or the request is "
            "an earlier account's of the caller's name"
        },
        404: {"description": "no such request"},
        409: {
            "description": "the caller's own request, already decided or expired, or the "
            "target moved since the request (nothing written)"
        },
    },
)
async def decide_approval(
    confirmation_id: str,
    body: DecisionBody,
    session: SessionDep,
    services: ServicesDep,
    runtime: RuntimeDep,
    executor: ExecutorDep,
    user: CurrentUser,
    token: TokenDep,
) -> ApprovalDecided:
    """The second person's decision; an approval applies the write once, as approved."""
    held = await held_writes.find(session, services, confirmation_id)
    if held is not None:  # the domain API's own held write: its route decides and runs it
        answer = await held_writes.relay_decision(
            executor, held.id, body.model_dump(exclude_none=True), token
        )
        await session.refresh(held)
        return ApprovalDecided(status=held_writes.status_of(held), task_id=answer.get("task_id"))
    confirmation = await _request(session, confirmation_id)
    _refuse(confirmation, user, body.decision)
    if confirmation.expires_at <= runtime.clock():
        await runtime.expire_stale(confirmation.conversation_id)
        raise HTTPException(409, words.APPROVAL_CLOSED["expired"])
    requester, requester_token = await _requester(session, services, confirmation)
    reason = one_line(body.reason)
    status = (
        ConfirmationStatus.approved if body.decision == "approve" else ConfirmationStatus.denied
    )
    refusal: str | None = None
    if status is ConfirmationStatus.approved:
        plan = await approvals.replan(runtime, confirmation, executor, token)
        if plan.problem is not None:  # no plan now: nothing decided, the request still waits
            problem = plan.problem or words.NO_PLAN_ANSWER
            raise HTTPException(409, words.NO_PLAN.format(problem=problem))
        if plan.moved:
            status, reason, refusal = (
                ConfirmationStatus.target_moved,
                words.TARGET_MOVED_REASON,
                words.TARGET_MOVED,
            )
    try:
        run_id = await approvals.decide_second(
            runtime,
            confirmation,
            status,
            by=user,
            requester=requester,
            requester_token=requester_token,
            reason=reason,
        )
    except (AlreadyDecided, Busy) as exc:
        raise conflict(exc, second=True) from exc
    await AuditTrail(session, user).record(
        "approval_decided",
        status.value,
        requested_by=confirmation.username,
        first_approved_by=confirmation.first_approved_by,
        second_by=user.username,
        **approvals.card_audit(confirmation),
        reason=reason if status is not ConfirmationStatus.approved else None,
    )
    if refusal is not None:
        raise HTTPException(409, refusal)
    return ApprovalDecided(status=status, run_id=run_id)
