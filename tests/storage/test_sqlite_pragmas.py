"""Every SQLite connection the app opens commits without waiting for an fsync (WAL + NORMAL).

With the default FULL, each commit of the event log, a claim or a message waited for the disk
(about 8 ms each here, three before a message's first event); NORMAL in WAL mode keeps the
database consistent and loses nothing when the app crashes — only a power cut may lose the
last commits. ``make bench`` (bench/streams.py) shows the latency this buys.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from sstools.storage.db import create_blocking_engine, create_engine, migrate

NORMAL = 1  # PRAGMA synchronous: 0 OFF, 1 NORMAL, 2 FULL


async def test_the_app_engine_commits_in_wal_without_waiting_for_fsync(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'app.db'}"
    migrate(url)
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            assert await connection.scalar(text("PRAGMA journal_mode")) == "wal"
            assert await connection.scalar(text("PRAGMA synchronous")) == NORMAL
    finally:
        await engine.dispose()


def test_the_blocking_engine_commits_the_same_way(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'app.db'}"
    migrate(url)
    engine = create_blocking_engine(url)
    try:
        with engine.connect() as connection:
            assert connection.scalar(text("PRAGMA synchronous")) == NORMAL
    finally:
        engine.dispose()
