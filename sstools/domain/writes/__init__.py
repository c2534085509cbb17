"""Writes into environments: the one apply of an approved plan, and the two-person rule."""

from sstools.domain.writes.apply import PlannedWrite, apply_approved, audit_write
from sstools.domain.writes.held import (
    Ask,
    Cleared,
    Granted,
    Held,
    WriteRequestView,
    request_link,
    second_person,
)

__all__ = [
    "Ask",
    "Cleared",
    "Granted",
    "Held",
    "PlannedWrite",
    "WriteRequestView",
    "apply_approved",
    "audit_write",
    "request_link",
    "second_person",
]
