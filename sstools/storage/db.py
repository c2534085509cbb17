"""The database: URL normalisation, the async engine and session factory, migrations on start."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import psycopg
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, Update, event, pool
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from sstools.storage.advisory import advisory_key, is_postgres, libpq_url


async def changed_one(session: AsyncSession, statement: Update) -> bool:
    """Run a conditional UPDATE and commit: whether it changed exactly one row (of concurrent
    callers, whether this one won)."""
    result = await session.execute(statement)
    await session.commit()
    return bool(result.rowcount == 1)  # type: ignore[attr-defined]


_MIGRATIONS = Path(__file__).with_name("migrations")
# How long a SQLite statement waits for another connection's write lock before "locked".
SQLITE_BUSY_TIMEOUT_S = 15.0


def _with_driver(url: str, *, asynchronous: bool) -> str:
    """``sqlite:///x.db`` / ``postgresql://…`` → the driver each side of the app needs."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        driver = "aiosqlite" if asynchronous else "pysqlite"
    elif backend == "postgresql":
        driver = "psycopg"  # psycopg 3 serves both sync (Alembic) and async (the app)
    else:
        raise ValueError(f"SSTOOLS_DATABASE_URL: unsupported database {backend!r}")
    return parsed.set(drivername=f"{backend}+{driver}").render_as_string(hide_password=False)


def _ensure_sqlite_folder(url: str) -> None:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)


def _commit_without_fsync(connection: Any, _record: object) -> None:
    """WAL + synchronous=NORMAL: a commit stops waiting for the disk (FULL fsyncs each one).

    Still consistent, and an app crash loses nothing; only a power cut may lose the last commits.
    """
    cursor = connection.cursor()
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def create_blocking_engine(database_url: str) -> Engine:
    """A synchronous engine, for code off the event loop (WAL setup, durable-task workflows)."""
    sqlite = make_url(database_url).get_backend_name() == "sqlite"
    engine = create_sync_engine(
        _with_driver(database_url, asynchronous=False),
        poolclass=pool.NullPool if sqlite else pool.QueuePool,
        **(
            {}
            if sqlite
            else {"pool_size": _BLOCKING_POOL_SIZE, "max_overflow": _BLOCKING_POOL_SIZE}
        ),
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S} if sqlite else {},
    )
    if sqlite:
        event.listen(engine, "connect", _commit_without_fsync)
    return engine


def _use_wal(database_url: str) -> None:
    """SQLite in write-ahead-log mode: readers never wait for the writer (persists in the file)."""
    parsed = make_url(database_url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return
    engine = create_blocking_engine(database_url)
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA journal_mode=WAL")
    finally:
        engine.dispose()


def migrate(database_url: str, revision: str = "head") -> None:
    """Bring the schema to the newest revision (idempotent); ``revision``: to that one (a test
    of a migration over the rows an older schema held)."""
    _ensure_sqlite_folder(database_url)
    _use_wal(database_url)
    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    config.attributes["database_url"] = _with_driver(database_url, asynchronous=False)
    if not is_postgres(database_url):
        command.upgrade(config, revision)
        return
    # Workers starting together on one database: one migrates, the others then find it done.
    with psycopg.connect(libpq_url(database_url), autocommit=True) as connection:
        connection.execute("select pg_advisory_lock(%s)", (advisory_key("once", "migrate"),))
        command.upgrade(config, revision)


# Connections a worker opens besides its pools: run locks, event listener, task lease.
_DEDICATED_CONNECTIONS = 3
# DBOS's own pool, plus the listener connection it detaches from it.
DBOS_POOL_SIZE = 2
# The durable tasks' progress writes, from workflow threads.
_BLOCKING_POOL_SIZE = 1


def overflow(pool_size: int) -> int:
    """Connections a burst may open beyond the pool (PostgreSQL); later ones wait their turn."""
    return pool_size // 2


def checkpoint_pool_size(pool_size: int) -> int:
    """The LangGraph checkpointer's pool on PostgreSQL."""
    return max(2, pool_size // 2)


def connection_budget(pool_size: int) -> int:
    """The most PostgreSQL connections one worker holds: ``workers × this < max_connections``."""
    return (
        pool_size
        + overflow(pool_size)
        + checkpoint_pool_size(pool_size)
        + DBOS_POOL_SIZE
        + 1
        + 2 * _BLOCKING_POOL_SIZE
        + _DEDICATED_CONNECTIONS
    )


def create_engine(
    database_url: str,
    *,
    pool_size: int = 8,
    busy_timeout_s: float = SQLITE_BUSY_TIMEOUT_S,
) -> AsyncEngine:
    _ensure_sqlite_folder(database_url)
    sqlite = make_url(database_url).get_backend_name() == "sqlite"
    # PostgreSQL connections are shared by every worker: a burst queues on the pool
    # (pool_timeout) instead; SQLite's are file handles, and a confirmation burst holds many.
    engine = create_async_engine(
        _with_driver(database_url, asynchronous=True),
        pool_size=pool_size,
        max_overflow=40 if sqlite else overflow(pool_size),
        pool_timeout=30,
        connect_args={"timeout": busy_timeout_s} if sqlite else {},
    )
    if sqlite:
        event.listen(engine.sync_engine, "connect", _commit_without_fsync)
    return engine


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


@asynccontextmanager
async def command_session(database_url: str) -> AsyncIterator[AsyncSession]:
    """A command's one session outside the app: the schema migrated first, as every command
    does, and an engine of its own, disposed of after."""
    migrate(database_url)
    engine = create_engine(database_url)
    try:
        async with session_factory(engine)() as session:
            yield session
    finally:
        await engine.dispose()
