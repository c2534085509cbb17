"""The ``sstools`` command: serve, sandbox up|down|status, users add|list."""

from __future__ import annotations

import asyncio
import sys
from typing import Annotated

import typer
import uvicorn

from sstools.auth.roles import Role
from sstools.auth.users import UserExists, add_user, list_users
from sstools.config import Settings
from sstools.environments import ConfigError
from sstools.logs import configure_logging
from sstools.storage.db import create_engine, migrate, session_factory

app = typer.Typer(
    help="sstools: Superset environments with a guarded AI agent.", no_args_is_help=True
)
users_app = typer.Typer(help="Manage sstools users.", no_args_is_help=True)
sandbox_app = typer.Typer(
    help="Local Apache Superset instances with demo content.", no_args_is_help=True
)
app.add_typer(users_app, name="users")
app.add_typer(sandbox_app, name="sandbox")


def _settings() -> Settings:
    try:
        return Settings()
    except ValueError as exc:
        typer.echo(f"sstools: configuration error: {exc}", err=True)
        raise typer.Exit(2) from exc


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on")] = 8000,
) -> None:
    """Run migrations, then serve the API and the web UI."""
    from sstools.app import create_app

    settings = _settings()
    if settings.tools_base_url is None:  # the agent's tools call this server over HTTP
        loopback = "127.0.0.1" if host in ("0.0.0.0", "::") else host  # noqa: S104
        settings = settings.model_copy(update={"tools_base_url": f"http://{loopback}:{port}"})
    configure_logging(settings.log_level)
    migrate(settings.database_url)
    try:
        application = create_app(settings)
    except ConfigError as exc:
        typer.echo(f"sstools: {exc}", err=True)
        raise typer.Exit(2) from exc
    uvicorn.run(application, host=host, port=port, log_level=settings.log_level.lower())


async def _with_session_add(
    settings: Settings, username: str, role: Role, password: str, upsert: bool
) -> None:
    engine = create_engine(settings.database_url)
    try:
        async with session_factory(engine)() as session:
            await add_user(session, username, role, password, upsert=upsert)
    finally:
        await engine.dispose()


@users_app.command("add")
def users_add(
    username: str,
    role: Annotated[Role, typer.Option(help="analyst (read-only), engineer (read + write), admin")],
    password: Annotated[str, typer.Option(prompt=True, hide_input=True, confirmation_prompt=True)],
    upsert: Annotated[bool, typer.Option(help="Update the user if it exists")] = False,
) -> None:
    """Add a user (or, with --upsert, set an existing user's role and password)."""
    settings = _settings()
    migrate(settings.database_url)
    try:
        asyncio.run(_with_session_add(settings, username, role, password, upsert))
    except UserExists:
        typer.echo(f"sstools: user {username!r} exists (use --upsert to change it)", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"user {username} ({role.value})")


@users_app.command("list")
def users_list() -> None:
    """List users and their roles."""
    settings = _settings()
    migrate(settings.database_url)

    async def run() -> None:
        engine = create_engine(settings.database_url)
        try:
            async with session_factory(engine)() as session:
                for user in await list_users(session):
                    typer.echo(f"{user.username}\t{user.role.value}")
        finally:
            await engine.dispose()

    asyncio.run(run())


@sandbox_app.command("up")
def sandbox_up() -> None:
    """Install (once), start and seed the dev, staging and prod Superset instances."""
    from sstools.sandbox import Sandbox, SandboxError, SandboxSettings
    from sstools.superset import SupersetError

    sandbox = Sandbox(SandboxSettings())
    try:
        sandbox.up(progress=lambda line: typer.echo(line, err=True))
    except (SandboxError, SupersetError) as exc:
        typer.echo(f"sstools sandbox: {exc}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(f"environments file: {sandbox.settings.environments_file}")


@sandbox_app.command("down")
def sandbox_down() -> None:
    """Stop the Superset instances that `sandbox up` started."""
    from sstools.sandbox import Sandbox, SandboxSettings

    for line in Sandbox(SandboxSettings()).down():
        typer.echo(line)


@sandbox_app.command("status")
def sandbox_status() -> None:
    """Show each sandbox instance: pid, port, healthy."""
    from sstools.sandbox import Sandbox, SandboxSettings

    statuses = Sandbox(SandboxSettings()).status()
    for status in statuses:
        typer.echo(
            f"{status.env_id}\t{status.stage}\t{status.url}\t"
            f"{'running' if status.running else 'stopped'}\t{'healthy' if status.healthy else '-'}"
        )
    sys.exit(0 if all(s.healthy for s in statuses) else 3)
