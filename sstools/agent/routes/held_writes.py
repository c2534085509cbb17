"""The domain API's held writes in ``/api/approvals``: listed and shown beside the agent's own
requests, their decisions relayed to ``POST /api/write-requests/{id}`` (over HTTP, as the tools
reach the domain, with the decider's token), which runs the write once.

A held write (``write_requests``) is one a route of the domain API asked for into a stage that
needs two people: asked outside any conversation, so no run resumes; its write runs as a task.
"""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException
from sqlalchemy.ext.asyncio import AsyncSession

from sstools import clock
from sstools.agent.executor import ToolExecutor
from sstools.auth.tokens import Caller
from sstools.http.services import Services
from sstools.storage import write_requests as stored
from sstools.storage.confirmations import ConfirmationStatus
from sstools.storage.models import WriteRequest
from sstools.storage.write_requests import RequestStatus

# A held write's state in the words of the agent's requests: «running» is an approval whose
# write is being started.
_STATUS = {
    RequestStatus.awaiting_first: ConfirmationStatus.pending,  # the requester's own word first
    RequestStatus.awaiting_second: ConfirmationStatus.awaiting_second,
    RequestStatus.running: ConfirmationStatus.approved,
    RequestStatus.approved: ConfirmationStatus.approved,
    RequestStatus.denied: ConfirmationStatus.denied,
    RequestStatus.expired: ConfirmationStatus.expired,
    RequestStatus.target_moved: ConfirmationStatus.target_moved,
}


def status_of(row: WriteRequest) -> ConfirmationStatus:
    return _STATUS[RequestStatus(row.status)]


def is_requester(row: WriteRequest, user: Caller) -> bool:
    return row.requester_id == user.uid


async def waiting(session: AsyncSession, services: Services) -> list[WriteRequest]:
    return await stored.waiting(session, clock.now(), services.environments)


async def find(session: AsyncSession, services: Services, request_id: str) -> WriteRequest | None:
    return await stored.current(session, request_id, clock.now(), services.environments)


async def relay_decision(
    executor: ToolExecutor, request_id: str, body: dict[str, Any], token: str
) -> dict[str, Any]:
    """The decision as the domain route answers it; its refusal (4xx) as it is, in words."""
    status, answer = await executor.relay("POST", f"/api/write-requests/{request_id}", body, token)
    if status != 200 or not isinstance(answer, dict):
        detail = answer.get("detail") if isinstance(answer, dict) else None
        raise HTTPException(status if 400 <= status < 500 else 502, detail)
    return answer
