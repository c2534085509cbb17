"""``sstools tokens create|list|revoke``: a person's access tokens for clients that are not a
browser (an MCP host, a script). The token is printed once, as the last line; never again."""

from __future__ import annotations

from typing import Annotated

import typer
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.personal_tokens import (
    TokenNameInvalid,
    TokenNameTaken,
    TokenView,
    create_token,
    list_tokens,
    revoke_token,
)
from sstools.cli._shared import in_session, no_such_user
from sstools.storage import audit

tokens_app = typer.Typer(
    help="Personal access tokens (for MCP hosts and scripts).", no_args_is_help=True
)

Name = Annotated[str, typer.Option(help="What the token is for, e.g. claude-desktop (1–64)")]


@tokens_app.command("create")
def tokens_create(
    username: str,
    name: Name,
    expires_days: Annotated[
        int | None, typer.Option(min=1, help="Days until it stops working (default: never)")
    ] = None,
) -> None:
    """Create a token that acts as USERNAME (with their role at each call); printed once."""

    async def create(session: AsyncSession) -> str | None:
        token = await create_token(session, username, name, expires_days=expires_days)
        if token is not None:
            await audit.record(
                session, action="token_created", outcome="ok", username=username, name=name
            )
        return token

    try:
        token = in_session(create)
    except TokenNameInvalid:
        typer.echo("sstools: --name must be 1 to 64 printable characters on one line", err=True)
        raise typer.Exit(2) from None
    except TokenNameTaken:
        typer.echo(f"sstools: {username} already has a token named {name!r}", err=True)
        raise typer.Exit(1) from None
    if token is None:
        raise no_such_user(username)
    typer.echo(f"token {name!r} of {username}; it is shown only now:")
    typer.echo(token)


@tokens_app.command("list")
def tokens_list(username: str) -> None:
    """List USERNAME's tokens: names, dates and last use, never the tokens."""

    async def listed(session: AsyncSession) -> list[TokenView] | None:
        return await list_tokens(session, username)

    found = in_session(listed)
    if found is None:
        raise no_such_user(username)
    for one in found:
        expires = one.expires_at.isoformat() if one.expires_at else "never"
        used = one.last_used_at.isoformat() if one.last_used_at else "never"
        typer.echo(
            f"{one.name}\tcreated {one.created_at.isoformat()}\texpires {expires}\tused {used}"
        )


@tokens_app.command("revoke")
def tokens_revoke(username: str, name: Name) -> None:
    """Revoke USERNAME's token NAME: it stops working at the next call."""

    async def revoke(session: AsyncSession) -> bool:
        revoked = await revoke_token(session, username, name)
        if revoked:
            await audit.record(
                session, action="token_revoked", outcome="ok", username=username, name=name
            )
        return revoked

    if not in_session(revoke):
        typer.echo(f"sstools: {username} has no token named {name!r}", err=True)
        raise typer.Exit(1)
    typer.echo(f"revoked token {name!r} of {username}")
