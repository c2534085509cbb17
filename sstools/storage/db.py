"""The database: URL normalisation, the async engine and session factory, migrations on start."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, pool
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

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


def create_blocking_engine(database_url: str) -> Engine:
    """A synchronous engine, for code off the event loop (WAL setup, durable-task workflows)."""
    sqlite = make_url(database_url).get_backend_name() == "sqlite"
    return create_sync_engine(
        _with_driver(database_url, asynchronous=False),
        poolclass=pool.NullPool if sqlite else pool.QueuePool,
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S} if sqlite else {},
    )


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


def migrate(database_url: str) -> None:
    """Bring the schema to the newest revision (idempotent)."""
    _ensure_sqlite_folder(database_url)
    _use_wal(database_url)
    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    config.attributes["database_url"] = _with_driver(database_url, asynchronous=False)
    command.upgrade(config, "head")


def create_engine(
    database_url: str, *, busy_timeout_s: float = SQLITE_BUSY_TIMEOUT_S
) -> AsyncEngine:
    _ensure_sqlite_folder(database_url)
    sqlite = make_url(database_url).get_backend_name() == "sqlite"
    # A confirmation burst holds a connection per request while the agent opens its own.
    return create_async_engine(
        _with_driver(database_url, asynchronous=True),
        pool_size=10,
        max_overflow=40,
        pool_timeout=10,
        connect_args={"timeout": busy_timeout_s} if sqlite else {},
    )


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)
