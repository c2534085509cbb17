"""One sandbox command at a time across processes (parallel test sessions all call `up`)."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path``, waiting for another process that holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file is closed, even on a crash
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
