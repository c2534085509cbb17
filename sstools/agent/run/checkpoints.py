"""Where LangGraph keeps a conversation's graph state: a SQLite file, or the PostgreSQL database.

On PostgreSQL every worker reads and writes the same checkpoints, so a run paused on one worker
resumes on another. Either way deserialisation is strict: only LangGraph's allow-list of plain
types is rebuilt from a checkpoint (GHSA-g48c-2wqr-h844), never an arbitrary importable class.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiosqlite
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from sstools.agent.run.locks import exclusively


def strict_serde() -> JsonPlusSerializer:
    return JsonPlusSerializer(allowed_msgpack_modules=None)  # None: the built-in safe list only


class _PooledPostgresSaver(AsyncPostgresSaver):
    """Without the saver-wide lock: a pool gives each operation its own connection.

    3.2.0 serialises every checkpoint read and write of the process behind one asyncio lock even
    with a pool (later releases drop it for pools); concurrent turns would queue behind it.
    """

    def __init__(self, pool: AsyncConnectionPool[Any]) -> None:
        super().__init__(pool, serde=strict_serde())
        self.lock = _NoLock()  # type: ignore[assignment]


class _NoLock(contextlib.AbstractAsyncContextManager[None]):
    async def __aexit__(self, *exc: object) -> None:
        return None


@asynccontextmanager
async def sqlite_checkpoints(path: str) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    async with aiosqlite.connect(path) as connection:
        saver = AsyncSqliteSaver(connection, serde=strict_serde())
        await saver.setup()  # its tables now: deleting a thread that never ran must find them
        yield saver


@asynccontextmanager
async def postgres_checkpoints(
    conninfo: str, pool_size: int
) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """``pool_size``: concurrent checkpoint reads/writes of this worker; more wait their turn."""
    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
        conninfo,
        min_size=1,
        max_size=pool_size,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        open=False,
    )
    await pool.open(wait=True)
    try:
        saver = _PooledPostgresSaver(pool)
        async with exclusively(conninfo, "checkpoints.setup"):  # workers starting together
            await saver.setup()
        yield saver
    finally:
        await pool.close()
