"""``/api/write-requests``: writes the domain API held for a second person, and that decision.

A write into a stage that needs two people (``SSTOOLS_APPROVALS_*``), asked through any route of
the domain API, answers 202 with a request (``sstools.domain.writes.held``). Any signed-in user
reads one by its link; only a person with the role it needs who is not its requester decides it.
An approval runs the very route again with the stored body, as the requester, and the plan made
again must still have the digest the requester approved, else nothing is written (409
«цель изменилась»). It runs once however many people press «Одобрить». ``/api/approvals`` lists
these beside the agent's requests and forwards their decisions here.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path
from sqlalchemy.ext.asyncio import AsyncSession

from sstools import clock
from sstools.auth.tokens import Caller
from sstools.domain.api.approval import Applying
from sstools.domain.api.backups import RestoreRequest, apply_restore
from sstools.domain.api.datasets import CreateRequest, create_dataset_as
from sstools.domain.api.deploy import ApplyRequest, apply_deploy
from sstools.domain.api.deploy_plan import RecentPlansDep
from sstools.domain.api.rollback import RollbackRequest, apply_rollback
from sstools.domain.api.sql import ExecuteRequest, run_sql
from sstools.domain.deploy import StalePlan
from sstools.domain.deploy.recent import RecentPlans
from sstools.domain.writes import Granted, WriteRequestView
from sstools.git_store import GitStore
from sstools.http.approvals import (
    Bar,
    DecisionBody,
    RequesterLost,
    approver_role,
    bar,
    one_line,
    requester_now,
)
from sstools.http.audit_trail import AuditTrail
from sstools.http.auth import CurrentUser
from sstools.http.deps import GitDep, ServicesDep, SessionDep
from sstools.http.services import Services
from sstools.metrics import count_approval
from sstools.storage import write_requests as stored
from sstools.storage.models import WriteRequest
from sstools.storage.write_requests import RequestStatus
from sstools.tasks import Task, TaskKind
from sstools.texts import http as http_texts
from sstools.texts import writes as texts

router = APIRouter(prefix="/api/write-requests", tags=["approvals"])

_SECOND = RequestStatus.awaiting_second
RequestId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$")]


def view(row: WriteRequest, services: Services) -> WriteRequestView:
    return WriteRequestView.of(row, services.environments.name_of(row.env_id))


async def _load(session: AsyncSession, services: Services, request_id: str) -> WriteRequest:
    row = await stored.current(session, request_id, clock.now(), services.environments)
    if row is None:
        raise HTTPException(404, texts.NOT_FOUND)
    return row


def _refuse(row: WriteRequest, user: Caller, decision: str) -> None:
    """Who may not decide, and a request no longer waiting: 4xx in words. The requester may
    withdraw (deny) their own request, never approve it."""
    barred = bar(user, row)
    if barred is Bar.namesake:
        raise HTTPException(403, texts.NAMESAKE)
    own = barred is Bar.own
    if row.status == RequestStatus.awaiting_first:  # the requester's own word comes first
        if not own:
            raise HTTPException(403, texts.FIRST_IS_REQUESTERS)
        return
    if own and decision == "approve":
        raise HTTPException(409, texts.OWN_REQUEST)
    if row.status != RequestStatus.awaiting_second:
        raise HTTPException(409, texts.CLOSED.get(row.status, row.status))
    if barred is Bar.role:
        role = approver_role(row)
        raise HTTPException(
            403,
            texts.ROLE_NEEDED.format(
                role=http_texts.ROLES[role.value], yours=http_texts.ROLES[user.role.value]
            ),
        )


async def _run(
    row: WriteRequest,
    requester: Caller,
    granted: Granted,
    services: Services,
    git: GitStore,
    recent: RecentPlans,
    session: AsyncSession,
) -> Task | None:
    """The request's route again, with its body, as its requester; its task (none for SQL)."""
    body: dict[str, Any] = dict(row.body)
    applying = Applying(services, session, requester, granted)
    ran: object
    if row.kind in (TaskKind.deploy, TaskKind.migration):
        apply = ApplyRequest.model_validate(body)
        ran = await apply_deploy(TaskKind(row.kind), apply, applying, git, recent)
    elif row.kind == TaskKind.rollback:
        task_id = str(body.pop("task_id"))
        again = RollbackRequest.model_validate(body)
        ran = await apply_rollback(task_id, again, applying, git)
    elif row.kind == TaskKind.restore:
        backup_id = str(body.pop("backup_id"))
        asked = RestoreRequest.model_validate(body)
        ran = await apply_restore(backup_id, asked, applying)
    elif row.kind == "dataset":
        asked_for = CreateRequest.model_validate(body)
        ran = await create_dataset_as(asked_for, services, session, requester, granted)
    else:
        sql = ExecuteRequest.model_validate(body)
        ran = await run_sql(row.env_id, sql, services, session, requester, granted)
    if isinstance(ran, WriteRequestView):  # a granted write is never held again
        raise RuntimeError(f"write request {row.id} was held again")
    return ran if isinstance(ran, Task) else None


@router.get("/{request_id}", responses={404: {"description": "no such request"}})
async def get_write_request(
    request_id: RequestId, session: SessionDep, services: ServicesDep, user: CurrentUser
) -> WriteRequestView:
    """One held write, by its link: any signed-in user may see where it stands."""
    return view(await _load(session, services, request_id), services)


@router.post(
    "/{request_id}",
    responses={
        403: {"description": "the caller's role may not approve it, or it is a namesake's"},
        404: {"description": "no such request"},
        409: {
            "description": "the caller's own request, already decided or expired, its "
            "requester signed out since, or the target moved (nothing written)"
        },
    },
)
async def decide_write_request(
    request_id: RequestId,
    body: DecisionBody,
    session: SessionDep,
    services: ServicesDep,
    git: GitDep,
    recent: RecentPlansDep,
    user: CurrentUser,
) -> WriteRequestView:
    """The second person's decision (or the requester's withdrawal); an approval runs the write
    once, as approved, in the requester's name."""
    row = await _load(session, services, request_id)
    _refuse(row, user, body.decision)
    reason = one_line(body.reason)
    now = clock.now()
    if body.decision == "deny":
        if not await stored.settle(
            session, row.id, RequestStatus.denied, by=user.username, now=now, reason=reason
        ):
            raise HTTPException(409, texts.CLOSED["denied"])
        await _audit(session, services, row, user, "denied", reason=reason)
        return view(await _load(session, services, request_id), services)
    requester = await requester_now(session, row)
    if isinstance(requester, RequesterLost):  # removed, or signed out everywhere since
        if await stored.settle(
            session, row.id, RequestStatus.denied, by=user.username, now=now, reason=None
        ):
            count_approval(
                services.environments.stage_of(row.env_id), "denied", row.created_at, now
            )
        raise HTTPException(409, texts.REQUESTER_SIGNED_OUT)
    waiting_for = RequestStatus(row.status)
    two = services.approvals.needed_for(services.environments, row.env_id) >= 2
    if waiting_for is RequestStatus.awaiting_first and two:  # now it waits for a second person
        if not await stored.claim(
            session, row.id, by=user.username, now=now, waiting_for=waiting_for, to=_SECOND
        ):
            await session.refresh(row)
            raise HTTPException(409, texts.CLOSED.get(row.status, row.status))
        await _audit(session, services, row, user, "first_approved")
        return view(await _load(session, services, request_id), services)
    if not await stored.claim(session, row.id, by=user.username, now=now, waiting_for=waiting_for):
        await session.refresh(row)
        raise HTTPException(409, texts.CLOSED.get(row.status, row.status))
    granted = Granted(request_id=row.id, by=user.username)
    try:
        task = await _run(row, requester, granted, services, git, recent, session)
    except StalePlan as exc:
        await stored.settle(session, row.id, RequestStatus.target_moved, by=user.username, now=now)
        await _audit(session, services, row, user, "target_moved")
        raise HTTPException(409, texts.TARGET_MOVED) from exc
    except BaseException:  # nothing started: the request waits again for whoever approves next
        await stored.settle(session, row.id, waiting_for, by=user.username, now=now)
        raise
    task_id = task.id if task is not None else None
    await stored.settle(
        session, row.id, RequestStatus.approved, by=user.username, now=now, task_id=task_id
    )
    await _audit(session, services, row, user, "approved", task_id=task_id)
    return view(await _load(session, services, request_id), services)


async def _audit(
    session: AsyncSession,
    services: Services,
    row: WriteRequest,
    user: Caller,
    outcome: str,
    **extra: Any,
) -> None:
    """The decision's audit row, and its count (with the time it took) on ``/metrics``."""
    ended = outcome != "first_approved"  # the requester's word: not yet the card's decision
    count_approval(
        services.environments.stage_of(row.env_id),
        outcome,
        row.created_at if ended else None,
        clock.now() if ended else None,
    )
    await AuditTrail(session, user).record(
        "write_request_decided",
        outcome,
        env_id=row.env_id,
        write_request_id=row.id,
        kind=row.kind,
        requested_by=row.requested_by,
        **extra,
    )
