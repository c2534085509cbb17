"""Run locks: at most one turn per conversation at a time, across every worker.

A turn takes its conversation's lock before it claims ``conversations.active_run_id`` and gives
it back after releasing the claim. On SQLite (one process) the lock is this process's memory. On
PostgreSQL it is also a session-level advisory lock on the worker's own connection: it dies with
the worker, so a claim whose lock is free belongs to a worker that is gone, and may be reaped.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager

import psycopg
import structlog
from psycopg.conninfo import make_conninfo

from sstools.storage.advisory import HELD_ADVISORY_LOCKS, advisory_key, lock_parts

_log = structlog.get_logger("sstools.agent")
_NAMESPACE = "run"
_EXCLUSIVE_POLL_S = 0.05
# A dead peer's connection (and its locks) must go within a minute, not a TCP timeout's hours.
_KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
}


class RunLocks:
    """In-process locks (SQLite): one process is the only worker, nothing is held elsewhere."""

    shared = False  # whether other processes run turns on the same database

    def __init__(self) -> None:
        self._held: set[str] = set()

    async def start(self) -> None:
        return None

    async def aclose(self) -> None:
        self._held.clear()

    async def acquire(self, conversation_id: str) -> bool:
        """Take the lock if nobody holds it; False when a turn of it runs here or elsewhere."""
        if conversation_id in self._held:
            return False
        self._held.add(conversation_id)  # before any await: a second local caller sees it
        return True

    async def release(self, conversation_id: str) -> None:
        self._held.discard(conversation_id)

    async def free_elsewhere(self, conversation_ids: Iterable[str]) -> list[str]:
        """Of these, the conversations whose lock no live worker holds."""
        return [cid for cid in conversation_ids if cid not in self._held]


class PostgresRunLocks(RunLocks):
    """Advisory locks on one connection per worker, for the worker's whole life."""

    shared = True

    def __init__(self, conninfo: str) -> None:
        super().__init__()
        self._conninfo = conninfo
        self._connection: psycopg.AsyncConnection[tuple[object, ...]] | None = None
        self._use = asyncio.Lock()  # one statement at a time on the connection
        # Held on the server; a subset of _held (which also counts locks being taken):
        # PostgreSQL counts re-entries, so a lock taken twice would outlive one unlock.
        self._taken: set[str] = set()

    async def start(self) -> None:
        async with self._use:
            await self._connect()

    async def aclose(self) -> None:
        async with self._use:
            if self._connection is not None:
                await self._connection.close()  # PostgreSQL drops every lock with it
                self._connection = None
        self._held.clear()
        self._taken.clear()

    async def _connect(self) -> psycopg.AsyncConnection[tuple[object, ...]]:
        if self._connection is not None and not self._connection.closed:
            return self._connection
        self._connection = await psycopg.AsyncConnection.connect(
            make_conninfo(self._conninfo, **_KEEPALIVES),
            autocommit=True,
        )
        lost, self._taken = self._taken, set()
        for conversation_id in lost:  # the old connection died, and our locks with it
            if await self._try(self._connection, conversation_id):
                self._taken.add(conversation_id)
            else:
                _log.error("run lock lost to another worker", conversation_id=conversation_id)
        return self._connection

    @staticmethod
    async def _try(connection: psycopg.AsyncConnection[tuple[object, ...]], cid: str) -> bool:
        cursor = await connection.execute(
            "select pg_try_advisory_lock(%s)", (advisory_key(_NAMESPACE, cid),)
        )
        row = await cursor.fetchone()
        return bool(row and row[0])

    async def acquire(self, conversation_id: str) -> bool:
        if not await super().acquire(conversation_id):
            return False
        try:
            async with self._use:
                try:
                    taken = await self._try(await self._connect(), conversation_id)
                except psycopg.OperationalError:  # it died since its last use: once more, anew
                    if self._connection is not None:
                        await self._connection.close()
                    taken = await self._try(await self._connect(), conversation_id)
        except BaseException:
            self._held.discard(conversation_id)
            raise
        if taken:
            self._taken.add(conversation_id)
        else:
            self._held.discard(conversation_id)
        return taken

    async def release(self, conversation_id: str) -> None:
        if conversation_id not in self._held:
            return
        self._held.discard(conversation_id)
        try:
            async with self._use:
                connection = await self._connect()
                if conversation_id not in self._taken:
                    return  # lost with an earlier connection, and not taken again
                self._taken.discard(conversation_id)
                await connection.execute(
                    "select pg_advisory_unlock(%s)", (advisory_key(_NAMESPACE, conversation_id),)
                )
        except psycopg.Error:  # the connection is gone, and the lock with it
            _log.warning("run lock: connection lost on release", conversation_id=conversation_id)

    async def free_elsewhere(self, conversation_ids: Iterable[str]) -> list[str]:
        """One read of ``pg_locks``; a candidate may still be taken by the time it is locked."""
        async with self._use:
            connection = await self._connect()
            cursor = await connection.execute(HELD_ADVISORY_LOCKS)
            held = {(int(classid), int(objid)) for classid, objid in await cursor.fetchall()}  # type: ignore[call-overload]
        return [
            cid
            for cid in conversation_ids
            if cid not in self._held and lock_parts(advisory_key(_NAMESPACE, cid)) not in held
        ]


@asynccontextmanager
async def exclusively(conninfo: str, name: str) -> AsyncIterator[None]:
    """One worker at a time in the block (e.g. creating tables at start), on PostgreSQL.

    Waiting polls instead of blocking in ``pg_advisory_lock``: a blocked statement is an open
    transaction, which the holder's ``CREATE INDEX CONCURRENTLY`` would wait for — forever.
    """
    key = advisory_key("once", name)
    async with await psycopg.AsyncConnection.connect(conninfo, autocommit=True) as connection:
        while True:
            cursor = await connection.execute("select pg_try_advisory_lock(%s)", (key,))
            row = await cursor.fetchone()
            if row and row[0]:
                break
            await asyncio.sleep(_EXCLUSIVE_POLL_S)
        yield  # closing the connection gives the lock back
