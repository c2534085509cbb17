"""Waiting for a task to get somewhere, without sleeping longer than it takes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from sstools.config import Settings
from sstools.tasks import Task, TaskEngine, TaskStatus, system_database


async def eventually(check: Callable[[], Awaitable[bool]], timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout_s} s")
        await asyncio.sleep(0.01)


async def task_reaches(
    tasks: TaskEngine, task_id: str, *statuses: TaskStatus, timeout_s: float = 30.0
) -> Task:
    async def reached() -> bool:
        return (await tasks.get(task_id)).status in statuses

    await eventually(reached, timeout_s)
    return await tasks.get(task_id)


def system_engine(settings: Settings) -> sa.Engine:
    """A plain connection to DBOS's system database (its tables, on PostgreSQL in its schema)."""
    url = make_url(system_database(settings))
    if url.get_backend_name() == "postgresql":
        return sa.create_engine(
            url, connect_args={"options": f"-csearch_path={settings.tasks_schema}"}
        )
    return sa.create_engine(url)
