"""A stored card read back: the one decode of a confirmation's event (the card as it was shown)
for every place that decides on it, shows it, or asks for its plan again."""

from __future__ import annotations

from pydantic import ValidationError

from sstools.agent.events import ConfirmRequired
from sstools.errors import SstoolsError
from sstools.storage.models import Confirmation


class CardUnreadable(SstoolsError):
    """A card of an older shape, or of a tool gone since: it can no longer be decided."""


def shown_card(confirmation: Confirmation) -> ConfirmRequired:
    """The card as the person saw it.

    Raises:
        CardUnreadable: the stored event is not a card of this version.
    """
    try:
        return ConfirmRequired.model_validate(confirmation.event)
    except ValidationError as exc:
        raise CardUnreadable(str(exc)) from exc
