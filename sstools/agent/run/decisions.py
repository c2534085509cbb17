"""What answers a paused run: a decision recorded once, or why it could not be."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

from sstools.agent.card.edits import EditedCall
from sstools.agent.events import Decided, DecisionStatus
from sstools.agent.invocation import ConfirmationAnswer
from sstools.auth.tokens import Caller
from sstools.errors import SstoolsError
from sstools.storage.confirmations import ConfirmationStatus
from sstools.storage.models import Confirmation


class AlreadyDecided(SstoolsError):
    """The confirmation was decided, has expired, or no longer matches the paused run (→ 409)."""

    def __init__(self, confirmation_id: str, *, expired: bool = False) -> None:
        super().__init__(confirmation_id)
        self.expired = expired


@dataclass(frozen=True)
class Resolution:
    """How a paused run is answered: the status recorded, who acts in the resumed run (and with
    which token), the reason with a denial; ``by`` and ``first_by`` when a second person decided
    (``acting`` is then the requester, in whose conversation the run resumes)."""

    status: ConfirmationStatus  # approved, denied, target_moved or edited
    acting: Caller
    token: str
    reason: str | None = None
    by: str | None = None
    first_by: str | None = None
    edit: EditedCall | None = None  # with ``edited``: the call as the person changed it

    def answer(self, confirmation: Confirmation) -> ConfirmationAnswer:
        """What the paused run resumes with: this card, these arguments, and the decision
        (with a denial its reason, with an edit the edited call)."""
        approved = self.status is ConfirmationStatus.approved
        edit = self.edit if self.status is ConfirmationStatus.edited else None
        moved = self.status is ConfirmationStatus.target_moved  # nobody denied it
        said: Literal["approve", "deny", "target_moved", "edit"] = (
            "approve"
            if approved
            else "edit"
            if edit is not None
            else "target_moved"
            if moved
            else "deny"
        )
        answer: ConfirmationAnswer = {
            "decision": said,
            "confirmation_id": confirmation.id,
            "args_hash": confirmation.args_hash,
            "reason": None if approved or moved or edit is not None else self.reason,
        }
        if edit is not None:
            answer |= {"edited_args": edit.args, "changes": edit.changes}
        return answer

    def decided(self, confirmation: Confirmation, at: datetime) -> Decided:
        """Who decided and when, at the head of the run the decision starts: the card is
        stamped from it, live and when the page is rebuilt from the log."""
        return Decided(
            confirmation_id=confirmation.id,
            call_id=confirmation.call_id,
            status=cast(DecisionStatus, self.status.value),
            by=self.by or self.acting.username,
            at=at,
            reason=self.answer(confirmation)["reason"],
            first_by=self.first_by,
        )
