"""How many event streams are open, per user and per conversation, so one user cannot hold them all.

Counted in this process's memory: with several workers each enforces its own caps, so a user may
hold up to (workers × cap) streams in all; a stream never needs a particular worker (the event log
is shared), so the caps stay local. A slot is released when its stream ends for any reason — the
client went away, the server is shutting down, or the stream failed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sstools.errors import SstoolsError
from sstools.metrics import ACTIVE_STREAMS


class TooManyStreams(SstoolsError):
    """Opening one more stream would exceed a cap (→ 429 with ``Retry-After``)."""

    def __init__(self, scope: str, limit: int) -> None:
        super().__init__(f"at most {limit} event streams may be open per {scope}")
        self.scope = scope
        self.limit = limit


@dataclass
class StreamSlot:
    """One open stream's place; :meth:`release` may be called any number of times."""

    _slots: StreamSlots
    username: str
    conversation_id: str
    _released: bool = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._slots._release(self)


@dataclass
class StreamSlots:
    per_user: int
    per_conversation: int
    _users: Counter[str] = field(default_factory=Counter)
    _conversations: Counter[str] = field(default_factory=Counter)

    def acquire(self, username: str, conversation_id: str) -> StreamSlot:
        """A slot, or :class:`TooManyStreams`; check and take happen with no await between."""
        if self._users[username] >= self.per_user:
            raise TooManyStreams("user", self.per_user)
        if self._conversations[conversation_id] >= self.per_conversation:
            raise TooManyStreams("conversation", self.per_conversation)
        self._users[username] += 1
        self._conversations[conversation_id] += 1
        ACTIVE_STREAMS.inc()
        return StreamSlot(self, username, conversation_id)

    def open_for(self, username: str) -> int:
        return self._users[username]

    def _release(self, slot: StreamSlot) -> None:
        ACTIVE_STREAMS.dec()
        self._users[slot.username] -= 1
        self._conversations[slot.conversation_id] -= 1
        # Counters would otherwise keep a zero per user and conversation ever seen.
        if self._users[slot.username] <= 0:
            del self._users[slot.username]
        if self._conversations[slot.conversation_id] <= 0:
            del self._conversations[slot.conversation_id]
