"""Superset from a workflow step: fresh clients on a fresh event loop, closed when it is done.

A step may run in any of DBOS's threads, after a restart too, never on the app's event loop, so
it cannot use the app's clients (bound to that loop). The session they win is kept for the next
step's clients (:class:`SessionKeys`): a deploy of 12 dashboards logs in once, not per step.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sstools.superset import SessionKeys, SupersetPool
from sstools.tasks._runtime import context

T = TypeVar("T")

_KEYS = SessionKeys()  # this worker's steps', across their event loops


def with_superset(work: Callable[[SupersetPool], Awaitable[T]]) -> T:
    """Run ``work`` with a pool of clients of its own and return what it returns."""
    task_context = context()

    async def main() -> T:
        pool = SupersetPool(
            task_context.environments,
            timeout_s=task_context.settings.superset_timeout_s,
            keys=_KEYS,
        )
        try:
            return await work(pool)
        finally:
            await pool.aclose()

    return asyncio.run(main())
