"""The ``sstools`` command: serve, sandbox up|down|stop|start|reset|status, users add|set-role|
remove|list, tokens create|list|revoke, mcp, drift."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from typing import Annotated

import typer
import uvicorn
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.roles import Role
from sstools.auth.secret import SecretFileError, signing_key
from sstools.auth.users import UserExists, add_user, list_users, remove_user, set_role
from sstools.cli._shared import in_session, no_such_user, settings_or_exit
from sstools.cli.tokens import tokens_app
from sstools.environments import ConfigError
from sstools.evaluation.command import eval_command
from sstools.logs import configure_logging
from sstools.storage import audit
from sstools.storage.db import migrate

app = typer.Typer(
    help="sstools: Superset environments with a guarded AI agent.", no_args_is_help=True
)
users_app = typer.Typer(help="Manage sstools users.", no_args_is_help=True)
sandbox_app = typer.Typer(
    help="Local Apache Superset instances with demo content.", no_args_is_help=True
)
app.add_typer(users_app, name="users")
app.add_typer(tokens_app, name="tokens")
app.add_typer(sandbox_app, name="sandbox")
app.command("eval")(eval_command)  # sstools eval: scenarios through the agent API


@app.command("mcp")
def mcp_stdio(
    url: Annotated[
        str, typer.Option(envvar="SSTOOLS_URL", help="The running sstools serve to relay to")
    ] = "http://127.0.0.1:8000",
) -> None:
    """Serve the MCP face over stdio for a local host (Claude Desktop, Cursor, an IDE), signed in
    by SSTOOLS_TOKEN (a personal access token) and relayed to URL's /mcp."""
    import anyio

    from sstools.mcp_face.stdio import bridge

    token = os.environ.get("SSTOOLS_TOKEN", "").strip()
    if not token:  # stdout is the protocol's: every word of ours goes to stderr
        typer.echo(
            "sstools: set SSTOOLS_TOKEN to a personal access token "
            "(sstools tokens create USERNAME --name NAME)",
            err=True,
        )
        raise typer.Exit(2)
    anyio.run(bridge, url, token)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on")] = 8000,
    workers: Annotated[
        int, typer.Option(min=1, help="Worker processes (more than 1 needs PostgreSQL)")
    ] = 1,
) -> None:
    """Run migrations, then serve the API and the web UI."""
    from sstools.app import create_app
    from sstools.storage.advisory import is_postgres

    settings = settings_or_exit()
    if workers > 1 and not is_postgres(settings.database_url):
        typer.echo(
            "sstools: --workers above 1 needs SSTOOLS_DATABASE_URL=postgresql://…; "
            "SQLite serves one process",
            err=True,
        )
        raise typer.Exit(2)
    if settings.tools_base_url is None:  # the agent's tools call this server over HTTP
        loopback = "127.0.0.1" if host in ("0.0.0.0", "::") else host  # noqa: S104
        settings = settings.model_copy(update={"tools_base_url": f"http://{loopback}:{port}"})
    configure_logging(settings.log_level)
    migrate(settings.database_url)
    try:
        signing_key(settings)  # in development: create or read the generated secret, and say so
    except (OSError, SecretFileError) as exc:
        typer.echo(f"sstools: JWT secret: {exc}", err=True)
        raise typer.Exit(2) from exc
    try:
        application = create_app(settings)
    except ConfigError as exc:
        typer.echo(f"sstools: {exc}", err=True)
        raise typer.Exit(2) from exc
    if workers == 1:
        uvicorn.run(application, host=host, port=port, log_level=settings.log_level.lower())
        return
    del application  # each worker builds its own, from the same environment
    os.environ["SSTOOLS_TOOLS_BASE_URL"] = str(settings.tools_base_url)
    # One /metrics for all workers: each writes its counts here, whichever answers merges them.
    own_metrics_dir = "PROMETHEUS_MULTIPROC_DIR" not in os.environ
    if own_metrics_dir:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="sstools-metrics-")
    try:
        uvicorn.run(
            "sstools.app:app_from_environment",
            factory=True,
            workers=workers,
            host=host,
            port=port,
            log_level=settings.log_level.lower(),
        )
    finally:
        if own_metrics_dir:
            shutil.rmtree(os.environ.pop("PROMETHEUS_MULTIPROC_DIR"), ignore_errors=True)


@users_app.command("add")
def users_add(
    username: str,
    role: Annotated[Role, typer.Option(help="analyst (read-only), engineer (read + write), admin")],
    password: Annotated[str, typer.Option(prompt=True, hide_input=True, confirmation_prompt=True)],
    upsert: Annotated[bool, typer.Option(help="Update the user if it exists")] = False,
) -> None:
    """Add a user (or, with --upsert, set an existing user's role and password).

    A changed password signs the user out everywhere.
    """

    async def add(session: AsyncSession) -> None:
        await add_user(session, username, role, password, upsert=upsert)
        await audit.record(
            session, action="user_saved", outcome="ok", username=username, role=role.value
        )

    try:
        in_session(add)
    except UserExists:
        typer.echo(f"sstools: user {username!r} exists (use --upsert to change it)", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"user {username} ({role.value})")


@users_app.command("set-role")
def users_set_role(
    username: str,
    role: Annotated[Role, typer.Option(help="analyst (read-only), engineer (read + write), admin")],
) -> None:
    """Change a user's role; it applies to their next request, tokens already issued included."""

    async def change(session: AsyncSession) -> bool:
        changed = await set_role(session, username, role)
        if changed:
            await audit.record(
                session, action="user_role", outcome="ok", username=username, role=role.value
            )
        return changed

    if not in_session(change):
        raise no_such_user(username)
    typer.echo(f"user {username} ({role.value})")


@users_app.command("remove")
def users_remove(username: str) -> None:
    """Remove a user; their tokens stop working at once."""

    async def remove(session: AsyncSession) -> bool:
        removed = await remove_user(session, username)
        if removed:
            await audit.record(session, action="user_removed", outcome="ok", username=username)
        return removed

    if not in_session(remove):
        raise no_such_user(username)
    typer.echo(f"removed user {username}")


@users_app.command("list")
def users_list() -> None:
    """List users and their roles."""
    for user in in_session(list_users):
        typer.echo(f"{user.username}\t{user.role.value}")


@app.command()
def report(
    since: Annotated[str, typer.Option(help="How far back: 7d, 24h, 30m")] = "7d",
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of tables")] = False,
) -> None:
    """SC-003 (transient failures, retries), SC-004 (answer sizes) and approvals per stage."""
    from sstools import clock
    from sstools.environments import load_environments
    from sstools.operations_report import operations_report, parse_span, render

    try:
        start = clock.now() - parse_span(since)
    except ValueError as exc:
        typer.echo(f"sstools: --since: {exc}", err=True)
        raise typer.Exit(2) from exc
    try:  # only the held writes need it: a card keeps its own stage
        environments = load_environments(settings_or_exit().environments_file)
        stages = {env_id: env.stage.value for env_id, env in environments.items()}
    except ConfigError as exc:  # the figures still come; the held writes' stage is unknown
        typer.echo(f"sstools: held writes are reported under «unknown»: {exc}", err=True)
        stages = {}
    figures = in_session(lambda session: operations_report(session, start, stages=stages))
    typer.echo(figures.model_dump_json(indent=2) if as_json else render(figures))


@app.command()
def drift(
    env: Annotated[
        list[str] | None, typer.Option("--env", help="An environment id (repeat for several)")
    ] = None,
    exit_code: Annotated[
        bool,
        typer.Option(
            "--exit-code", help="Exit 1 when a dashboard drifted, 3 when an environment is silent"
        ),
    ] = False,
) -> None:
    """Each environment against git main and its upstream stage: the drifted dashboards."""
    from sstools.domain.drift import check_drift
    from sstools.environments import load_environments
    from sstools.git_store import GitStore
    from sstools.superset import SupersetPool
    from sstools.texts import drift as words

    settings = settings_or_exit()
    configure_logging("WARNING")
    try:
        environments = load_environments(settings.environments_file)
    except ConfigError as exc:
        typer.echo(f"sstools: {exc}", err=True)
        raise typer.Exit(2) from exc
    unknown = [one for one in env or [] if one not in environments]
    if unknown:
        typer.echo(
            f"sstools: no environment {', '.join(unknown)} (known: {', '.join(environments)})",
            err=True,
        )
        raise typer.Exit(2)

    async def run() -> list[str]:
        pool = SupersetPool(environments, timeout_s=settings.superset_timeout_s)
        git = GitStore.from_settings(settings)
        try:
            report = await check_drift(pool, list(environments.values()), git, env or None)
        finally:
            await pool.aclose()
        lines = []
        for one in report.environments:
            drifted = one.drifted
            if not one.reachable:
                summary = words.UNREACHABLE.format(error=one.error)
            elif drifted:
                summary = words.DRIFTED.format(count=len(drifted))
            else:
                summary = words.NO_DRIFT
            lines.append(words.ENVIRONMENT.format(name=one.name, env=one.env_id, summary=summary))
            lines += [
                words.DASHBOARD.format(title=row.title, state=words.STATES[row.state.value])
                for row in drifted
            ]
        silent = any(not one.reachable for one in report.environments)
        drifted_any = any(one.drifted for one in report.environments)
        return [*lines, "3" if silent else "1" if drifted_any else "0"]

    *lines, verdict = asyncio.run(run())
    for line in lines:
        typer.echo(line)
    if exit_code and verdict != "0":
        raise typer.Exit(int(verdict))


def _progress(line: str) -> None:
    typer.echo(line, err=True)


def _sandbox_failed(exc: Exception, code: int) -> typer.Exit:
    """What every sandbox command does when the sandbox refuses: say why, exit with ``code``."""
    typer.echo(f"sstools sandbox: {exc}", err=True)
    return typer.Exit(code)


def _bring_up(*, fresh: bool) -> None:
    """`sandbox up` (``fresh``: `sandbox reset`), then where the environments file is."""
    from sstools.sandbox import Sandbox, SandboxError, SandboxSettings
    from sstools.superset import SupersetError

    sandbox = Sandbox(SandboxSettings())
    try:
        (sandbox.reset if fresh else sandbox.up)(progress=_progress)
    except (SandboxError, SupersetError) as exc:
        raise _sandbox_failed(exc, 1) from exc
    typer.echo(f"environments file: {sandbox.settings.environments_file}")


@sandbox_app.command("up")
def sandbox_up() -> None:
    """Install (once), start and seed the dev, staging and prod Superset instances."""
    _bring_up(fresh=False)


@sandbox_app.command("install")
def sandbox_install(
    also: Annotated[
        list[str] | None,
        typer.Option(
            "--version",
            help="another Superset release to install as well (5.0.0); repeatable",
        ),
    ] = None,
) -> None:
    """Install Superset's venv and its template metadata DB (once a release); start nothing."""
    from sstools.sandbox import Sandbox, SandboxError, SandboxSettings

    try:
        Sandbox(SandboxSettings()).prepare(progress=_progress, also=tuple(also or ()))
    except SandboxError as exc:
        raise _sandbox_failed(exc, 1) from exc


@sandbox_app.command("down")
def sandbox_down() -> None:
    """Stop the Superset instances that `sandbox up` started."""
    from sstools.sandbox import Sandbox, SandboxSettings

    for line in Sandbox(SandboxSettings()).down():
        typer.echo(line)


def _switch(env_id: str, *, on: bool) -> None:
    """`sandbox start` (``on``) or `sandbox stop` one instance; a refused stop exits 2."""
    from sstools.sandbox import Sandbox, SandboxError, SandboxSettings

    sandbox = Sandbox(SandboxSettings())
    try:
        typer.echo(sandbox.start(env_id) if on else sandbox.stop(env_id))
    except SandboxError as exc:
        raise _sandbox_failed(exc, 1 if on else 2) from exc


@sandbox_app.command("stop")
def sandbox_stop(env_id: Annotated[str, typer.Argument(help="ss-dev, staging or prod")]) -> None:
    """Stop one sandbox instance; its content stays (`sandbox start` brings it back)."""
    _switch(env_id, on=False)


@sandbox_app.command("start")
def sandbox_start(env_id: Annotated[str, typer.Argument(help="ss-dev, staging or prod")]) -> None:
    """Start one stopped sandbox instance and wait until it is healthy."""
    _switch(env_id, on=True)


@sandbox_app.command("reset")
def sandbox_reset() -> None:
    """Stop the instances, delete their content and bring them up freshly seeded."""
    _bring_up(fresh=True)


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
