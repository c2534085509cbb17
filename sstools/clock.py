"""The wall clock, read in one place: each «now» sstools stores, compares or names a file after.

Tests move it with :func:`moved_to` rather than sleeping or patching ``datetime``; moving the
process's clock (libfaketime) moves it too, since underneath it reads the system clock.

Two readings stay on the system clock on purpose, because a library checks them against that
clock: JWT ``iat``/``exp`` (PyJWT verifies them with its own ``datetime.now``) and the login
throttle's retry-after (the ``limits`` window is counted in ``time.time()``). Durations and
deadlines use ``time.monotonic()``, which no calendar can move.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

Clock = Callable[[], datetime]

# How far the clock is moved from the system's; zero outside moved_to().
_offset = timedelta(0)


def now() -> datetime:
    """The current moment, aware and in UTC."""
    return datetime.now(UTC) + _offset


def timestamp() -> float:
    """:func:`now` as POSIX seconds (git commit times)."""
    return now().timestamp()


@contextmanager
def moved_to(moment: datetime) -> Iterator[None]:
    """Within the block the clock starts at ``moment`` and keeps running at the real pace.

    Running, not frozen: rows written one after another still sort in the order they were
    written. A naive ``moment`` is taken as UTC, as everywhere else in sstools.
    """
    global _offset
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    before = _offset
    _offset = moment - datetime.now(UTC)
    try:
        yield
    finally:
        _offset = before
