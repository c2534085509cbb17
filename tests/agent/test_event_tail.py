"""A woken stream reads this worker's recent events from memory, never skipping another's; an
event waits out a busy connection pool rather than being lost."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.ext.asyncio import create_async_engine

from sstools.agent.events import Done, EventLog, MessageEvent
from sstools.storage.db import create_engine, migrate, session_factory


async def test_an_event_another_worker_appended_in_between_is_never_skipped(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'events.db'}"
    migrate(url)
    engine = create_engine(url)
    try:
        here, there = EventLog(session_factory(engine)), EventLog(session_factory(engine))
        for log, text in ((here, "one"), (there, "two"), (here, "three")):
            await log.append("c1", MessageEvent(text=text))
        texts = [data["text"] for _, data in await here.since("c1", 0)]
        assert texts == ["one", "two", "three"]
        assert [seq for seq, _ in await here.since("c1", 1)] == [2, 3]
        assert [seq for seq, _ in await here.since("c1", 2)] == [3]
    finally:
        await engine.dispose()


async def test_a_stream_woken_by_this_workers_append_reads_it_from_memory(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'events.db'}"
    migrate(url)
    engine = create_engine(url)
    reads: list[str] = []
    event.listen(engine.sync_engine, "before_cursor_execute", _count_selects(reads))
    try:
        log = EventLog(session_factory(engine))
        for text in ("one", "two", "three"):
            await log.append("c1", MessageEvent(text=text))
        reads.clear()
        assert [data["text"] for _, data in await log.since("c1", 1)] == ["two", "three"]
        assert reads == []  # no round trip to the table
        log.wake("c1", 4)  # another worker announced seq 4: memory alone is not enough
        assert [seq for seq, _ in await log.since("c1", 1)] == [2, 3]
        assert len(reads) == 1
    finally:
        await engine.dispose()


def _count_selects(reads: list[str]) -> Callable[..., None]:
    def before(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if statement.lstrip().lower().startswith("select"):
            reads.append(statement)

    return before


async def test_an_event_waits_out_a_full_pool_instead_of_being_lost(tmp_path: Path) -> None:
    """Under load, a run's `done` met a pool with no connection free for the whole wait and was
    dropped: its chat never ended (seen in `make bench-scale`)."""
    migrate(f"sqlite:///{tmp_path / 'events.db'}")
    engine = create_async_engine(
        f"sqlite+aiosqlite:///{tmp_path / 'events.db'}",
        pool_size=1,
        max_overflow=0,
        pool_timeout=0.2,
    )
    try:
        log = EventLog(session_factory(engine))
        async with engine.connect():  # the only connection, busy for longer than one wait
            appending = asyncio.create_task(log.append("c1", Done(run_id="run_1")))
            await asyncio.sleep(0.3)
        assert await appending == 1
        assert [data["type"] for _, data in await log.since("c1", 0)] == ["done"]
    finally:
        await engine.dispose()
