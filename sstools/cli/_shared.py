"""What the command's groups share: the settings (or a clear exit), one session on the
configured database, and the words for a user that does not exist."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import typer
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.config import Settings
from sstools.logs import configure_logging
from sstools.storage.db import command_session

_T = TypeVar("_T")


def settings_or_exit() -> Settings:
    try:
        return Settings()
    except ValueError as exc:
        typer.echo(f"sstools: configuration error: {exc}", err=True)
        raise typer.Exit(2) from exc


def in_session(work: Callable[[AsyncSession], Awaitable[_T]]) -> _T:
    """Migrate, then run ``work`` in one session on the configured database."""
    settings = settings_or_exit()
    configure_logging("WARNING")  # the command says what it did; audit lines stay in the table

    async def run() -> _T:
        async with command_session(settings.database_url) as session:
            return await work(session)

    return asyncio.run(run())


def no_such_user(username: str) -> typer.Exit:
    typer.echo(f"sstools: no user {username!r} (see `sstools users list`)", err=True)
    return typer.Exit(1)
