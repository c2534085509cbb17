"""What answers a paused run: a decision recorded once, or why it could not be."""

from __future__ import annotations

from dataclasses import dataclass

from sstools.agent.card_edits import EditedCall
from sstools.auth.tokens import Principal
from sstools.errors import SstoolsError
from sstools.storage.confirmations import ConfirmationStatus


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
    acting: Principal
    token: str
    reason: str | None = None
    by: str | None = None
    first_by: str | None = None
    edit: EditedCall | None = None  # with ``edited``: the call as the person changed it
