"""A request for a second person read the one way from either table (``request_record``): the
requester, the decider and the role under each table's own column names; a held write has no
first approval on record (the page shows none)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sstools.auth.roles import Role
from sstools.http.request_record import request_record
from sstools.storage.models import Confirmation, WriteRequest

T0 = datetime(2026, 12, 1, 5, 44, tzinfo=UTC)


def test_an_agent_card_reads_its_requester_first_approval_and_second_person() -> None:
    card = Confirmation(
        id="c1",
        env_id=None,
        username="ann",
        created_at=T0,
        first_approved_at=T0 + timedelta(minutes=1),
        expires_at=T0 + timedelta(hours=1),
        second_by="bob",
        second_at=T0 + timedelta(minutes=2),
        reason="не сейчас",
        approver_role=None,
        task_id=None,
    )
    record = request_record(card)
    assert (record.id, record.env_id, record.requested_by) == ("c1", None, "ann")
    assert record.first_approved_at == T0 + timedelta(minutes=1)
    assert (record.decided_by, record.decided_at) == ("bob", T0 + timedelta(minutes=2))
    assert (record.reason, record.task_id) == ("не сейчас", None)
    assert record.approver_role is Role.admin  # a card's row that names no role needs an admin


def test_a_held_write_has_no_first_approval_on_record() -> None:
    held = WriteRequest(
        id="w1",
        env_id="prod",
        requested_by="ann",
        created_at=T0,
        expires_at=T0 + timedelta(hours=1),
        decided_by="bob",
        decided_at=T0 + timedelta(minutes=3),
        reason=None,
        approver_role="engineer",
        task_id="t" * 32,
    )
    record = request_record(held)
    assert (record.id, record.env_id, record.requested_by) == ("w1", "prod", "ann")
    assert record.first_approved_at is None
    assert (record.decided_by, record.decided_at) == ("bob", T0 + timedelta(minutes=3))
    assert (record.approver_role, record.task_id) == (Role.engineer, "t" * 32)
