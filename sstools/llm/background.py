"""Background model calls take turns: at most ``SSTOOLS_LLM_BACKGROUND_CONCURRENCY`` at once.

Validation reviews and documentation run as tasks in worker threads and ask the same endpoint
the chat asks. A local model serves one or two requests at a time; without a limit, a burst of
tasks fills its slots and every chat turn waits behind them. Chat turns are not counted: only
the calls made inside :func:`background_call`. The limit holds per process (one worker) and per
endpoint.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import structlog

from sstools.config import Settings

_log = structlog.get_logger("sstools.llm")
_guard = threading.Lock()
_slots: dict[tuple[str, int], threading.BoundedSemaphore] = {}


def _semaphore(settings: Settings) -> threading.BoundedSemaphore:
    key = (settings.llm_base_url or "", settings.llm_background_concurrency)
    with _guard:
        if key not in _slots:
            _slots[key] = threading.BoundedSemaphore(settings.llm_background_concurrency)
        return _slots[key]


@contextmanager
def background_call(settings: Settings, purpose: str) -> Iterator[None]:
    """Hold one of the endpoint's background slots while the block calls the model."""
    slot = _semaphore(settings)
    started = time.monotonic()
    if not slot.acquire(blocking=False):
        _log.info("background model call waits its turn", purpose=purpose)
        slot.acquire()
        _log.info(
            "background model call got its turn",
            purpose=purpose,
            waited_s=round(time.monotonic() - started, 3),
        )
    try:
        yield
    finally:
        slot.release()
