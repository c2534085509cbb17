"""The app lets go of what it started when it stops, also when it stops because of an error."""

from __future__ import annotations

import asyncio
import threading

import pytest

from sstools.config import Settings
from tests.conftest import app_client


class _Boom(Exception):
    pass


async def _threads_left(before: set[threading.Thread]) -> list[str]:
    """The threads started since ``before`` that are still alive after a short grace; the
    embedding engine's one thread is the process's, shared by every app, and stays."""
    for _ in range(50):
        left = [
            thread.name
            for thread in threading.enumerate()
            if thread not in before and not thread.name.startswith("embedding")
        ]
        if not left:
            return []
        await asyncio.sleep(0.1)
    return left


async def test_an_app_stopped_by_an_error_leaves_nothing_running(settings: Settings) -> None:
    """An error inside a running app (a failing test, a crashing server) used to skip the
    lifespan's shutdown: the agent's checkpoint database stayed open on its thread and the task
    engine ran on, to surface later as some other test's failure."""
    before = set(threading.enumerate())

    async def fail_while_running() -> None:
        async with app_client(settings) as client:
            assert (await client.get("/healthz")).status_code == 200
            assert await _threads_left(before) != [], "the running app holds no thread to free"
            raise _Boom

    with pytest.raises(_Boom):
        await fail_while_running()
    assert await _threads_left(before) == []
