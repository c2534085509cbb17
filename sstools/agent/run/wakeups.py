"""Cross-worker wake-up for event streams: PostgreSQL ``LISTEN sstools_events``.

The event log table stays the source of truth; a notification only says "conversation C has
events up to seq N", so a stream waiting on this worker re-reads the table at once instead of at
its next poll. A lost notification (the listener reconnecting) costs at most one poll interval.
"""

from __future__ import annotations

import asyncio
import contextlib

import psycopg
import structlog

from sstools.agent.events import NOTIFY_CHANNEL, EventLog

_log = structlog.get_logger("sstools.agent")
_RECONNECT_S = 1.0


def parse_payload(payload: str) -> tuple[str, int] | None:
    """``'<conversation_id>:<seq>'`` → (conversation_id, seq); None for anything else."""
    conversation_id, _, seq = payload.rpartition(":")
    if not conversation_id or not seq.isdigit():
        return None
    return conversation_id, int(seq)


class EventListener:
    """One LISTEN connection per worker, waking this worker's waiting streams."""

    def __init__(self, conninfo: str, events: EventLog) -> None:
        self._conninfo = conninfo
        self._events = events
        self._task: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()  # set while LISTEN is in effect (tests wait for it)

    async def start(self) -> None:
        self._task = asyncio.create_task(self._listen_forever())
        with contextlib.suppress(TimeoutError):  # a slow database must not hold up start-up
            await asyncio.wait_for(self.listening.wait(), 10)

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _listen_forever(self) -> None:
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self._conninfo, autocommit=True
                ) as connection:
                    await connection.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self.listening.set()
                    self._events.wake_all()  # whatever was missed while not listening
                    async for notice in connection.notifies():
                        parsed = parse_payload(notice.payload)
                        if parsed is not None:
                            self._events.wake(*parsed)
            except psycopg.Error as exc:
                self.listening.clear()
                _log.warning("event listener lost its connection", error=str(exc))
                await asyncio.sleep(_RECONNECT_S)
