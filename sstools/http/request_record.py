"""A request for a second person as every face shows it, whichever table holds it: an agent card
waiting for a second approval (``confirmations``) or a write the domain API held
(``write_requests``) — who asked and when, until when it waits, who decided, the role it needs.

In ``http/`` because both the agent's ``/api/approvals`` (which may not import the domain) and
the ``/approvals`` pages read requests through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sstools.auth.roles import Role
from sstools.http.approvals import approver_role
from sstools.storage.models import Confirmation, WriteRequest


@dataclass(frozen=True)
class RequestRecord:
    id: str
    env_id: str | None  # None: an agent card about git only
    requested_by: str
    requested_at: datetime
    # The requester's own approval of an agent card; a held write has none on record (asking
    # through the API, or their MCP host's word still to come).
    first_approved_at: datetime | None
    expires_at: datetime
    decided_by: str | None
    decided_at: datetime | None
    reason: str | None
    approver_role: Role
    task_id: str | None  # the task its approval started, once started


def request_record(row: Confirmation | WriteRequest) -> RequestRecord:
    """The one reading of either table's row; the tables name the requester and the decider
    differently."""
    if isinstance(row, Confirmation):
        requester, first = row.username, row.first_approved_at
        decider, decided = row.second_by, row.second_at
    else:
        requester, first = row.requested_by, None
        decider, decided = row.decided_by, row.decided_at
    return RequestRecord(
        id=row.id,
        env_id=row.env_id,
        requested_by=requester,
        requested_at=row.created_at,
        first_approved_at=first,
        expires_at=row.expires_at,
        decided_by=decider,
        decided_at=decided,
        reason=row.reason,
        approver_role=approver_role(row),
        task_id=row.task_id,
    )
