"""The two-person rule at the domain API: a write into a stage that needs two people runs only
with a second person's approval on record, whatever route asked for it.

:func:`second_person` is the gate every writing route passes last, after its own checks:

- one person is enough for the stage → :class:`Cleared` (no second name);
- the write is a held request's, run by the second person who just approved it → cleared, naming
  them (:class:`Granted`, only ever made by the request's decision route);
- an agent card for this requester, environment and plan (or SQL) was approved by a second person
  and not yet spent → cleared, naming them, and the approval is spent (a write runs once);
- otherwise the write is held: a :class:`~sstools.storage.models.WriteRequest` is stored and the
  route answers 202 with it (:class:`Held`); nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession

from sstools import clock
from sstools.auth.roles import Role
from sstools.auth.tokens import Caller
from sstools.http.approvals import approver_role
from sstools.http.services import Services
from sstools.metrics import count_approval
from sstools.storage import audit
from sstools.storage import write_requests as stored
from sstools.storage.models import WriteRequest
from sstools.storage.write_requests import RequestStatus
from sstools.texts import http as http_texts
from sstools.texts import writes as texts


def request_link(request_id: str) -> str:
    """Where a second person sees and decides it (the same page as the agent's requests)."""
    return f"/approvals/{request_id}"


class WriteRequestView(BaseModel):
    """A held write as its requester and its second person read it."""

    id: str
    status: RequestStatus
    link: str = Field(description="The request's page, to share with whoever may approve it")
    kind: str = Field(description="deploy, migration, rollback, restore, sql or dataset")
    title: str
    env_id: str
    objects: list[str]
    digest: str
    requested_by: str
    approver_role: Role
    created_at: datetime
    expires_at: datetime
    decided_by: str | None
    decided_at: datetime | None
    reason: str | None
    task_id: str | None = Field(description="The task its write started, once approved")
    message: str = Field(description="Where it stands, in words")

    @classmethod
    def of(cls, row: WriteRequest, env_name: str) -> WriteRequestView:
        status = RequestStatus(row.status)
        role = approver_role(row)
        link = request_link(row.id)
        if status is RequestStatus.awaiting_first:
            message = texts.HELD_FOR_REQUESTER.format(link=link)
        elif status is RequestStatus.awaiting_second:
            message = texts.HELD.format(env=env_name, role=http_texts.ROLES[role.value], link=link)
        else:
            message = texts.CLOSED.get(status.value, "")
        return cls(
            id=row.id,
            status=status,
            link=link,
            kind=row.kind,
            title=row.title,
            env_id=row.env_id,
            objects=list(row.objects),
            digest=row.digest,
            requested_by=row.requested_by,
            approver_role=role,
            created_at=row.created_at,
            expires_at=row.expires_at,
            decided_by=row.decided_by,
            decided_at=row.decided_at,
            reason=row.reason,
            task_id=row.task_id,
            message=message,
        )


@dataclass(frozen=True)
class Ask:
    """What a writing route asks to do, as a request would keep it."""

    kind: str  # a task kind, or "sql"
    env_id: str
    digest: str  # the plan's, or the SQL's
    matches: str  # what an agent card bound its approval to: the plan's digest, or the SQL
    objects: list[str]
    body: dict[str, Any]  # the route's body, to run again as is
    approver_role: Role


@dataclass(frozen=True)
class Granted:
    """A held request run by the second person who approved it."""

    request_id: str
    by: str


@dataclass(frozen=True)
class Cleared:
    approved_by: str | None  # the second person, where the stage needed one
    card_id: str | None = None  # the agent card whose second approval this write spends


@dataclass(frozen=True)
class Held:
    request: WriteRequestView


def title_of(services: Services, ask: Ask) -> str:
    objects = ", ".join(f"«{name}»" for name in ask.objects[:3])
    if len(ask.objects) > 3:
        objects += texts.AND_MORE.format(count=len(ask.objects) - 3)
    kind = texts.KIND_TITLES.get(ask.kind, ask.kind)
    env = services.environments.name_of(ask.env_id)
    return texts.TITLE.format(kind=kind, env=env, objects=objects)


async def second_person(
    session: AsyncSession,
    services: Services,
    caller: Caller,
    ask: Ask,
    granted: Granted | None = None,
) -> Cleared | Held:
    """Cleared to write (with the second person's name where one was needed), or held."""
    if caller.holds_writes and granted is None:  # the MCP face: the person's own word first
        return await _hold(session, services, caller, ask, RequestStatus.awaiting_first)
    if services.approvals.needed_for(services.environments, ask.env_id) < 2:
        return Cleared(approved_by=None)
    if granted is not None:
        return Cleared(approved_by=granted.by)
    spent = await stored.spend_agent_approval(
        session, requester_id=caller.uid, env_id=ask.env_id, matches=ask.matches, now=clock.now()
    )
    if spent is not None:
        return Cleared(approved_by=spent.second_by, card_id=spent.card_id)
    return await _hold(session, services, caller, ask, RequestStatus.awaiting_second)


async def _hold(
    session: AsyncSession, services: Services, caller: Caller, ask: Ask, status: RequestStatus
) -> Held:
    """The write stored as a request waiting for ``status``'s decision; nothing written."""
    now = clock.now()
    row = WriteRequest(
        kind=ask.kind,
        body=ask.body,
        env_id=ask.env_id,
        digest=ask.digest,
        title=title_of(services, ask),
        objects=ask.objects,
        requested_by=caller.username,
        requester_id=caller.uid,
        requester_token_version=caller.token_version,
        approver_role=ask.approver_role.value,
        status=status.value,
        created_at=now,
        expires_at=now + timedelta(seconds=services.settings.second_approval_ttl_s),
    )
    session.add(row)
    await session.commit()
    count_approval(services.environments.stage_of(ask.env_id), "asked")
    await audit.record(
        session,
        action="approval_requested",
        outcome=status.value,
        username=caller.username,
        env_id=ask.env_id,
        write_request_id=row.id,
        kind=ask.kind,
        digest=ask.digest,
        approver_role=ask.approver_role.value,
        **({"face": "mcp"} if caller.holds_writes else {}),
    )
    return Held(WriteRequestView.of(row, services.environments.name_of(ask.env_id)))
