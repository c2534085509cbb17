"""A woken stream reads this worker's recent events from memory, never skipping another's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sqlalchemy import event

from sstools.agent.events import EventLog, MessageEvent
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
