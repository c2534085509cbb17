"""``sstools eval``: run scenario files through the agent API and print accuracy per kind; with
``--from-feedback``, write the answers people rated 👎 as scenarios instead (:mod:`.feedback`).

Exit status: 0, or 1 when the overall accuracy is below ``--min-accuracy``, or 2 when the run
could not be made (a bad scenario or credentials file, a server that refuses to sign in).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:  # imported when the command runs: `sstools users ...` need not load the agent
    from sstools.auth.roles import Role
    from sstools.evaluation.report import Report
    from sstools.evaluation.runner import Credentials
    from sstools.evaluation.scenarios import Scenario


def _fail(message: str) -> typer.Exit:
    typer.echo(f"sstools eval: {message}", err=True)
    return typer.Exit(2)


def _credentials(path: Path) -> dict[Role, Credentials]:
    import yaml
    from pydantic import TypeAdapter, ValidationError

    from sstools.auth.roles import Role
    from sstools.evaluation.runner import Credentials

    adapter = TypeAdapter(dict[Role, Credentials])
    try:
        return adapter.validate_python(yaml.safe_load(path.read_text("utf-8")))
    except ValidationError as exc:  # its own text quotes the input: the passwords
        problems = "; ".join(
            f"{'.'.join(map(str, error['loc']))}: {error['msg']}"
            for error in exc.errors(include_input=False)
        )
        expected = "expected `ROLE: {username: ..., password: ...}`"
        raise _fail(f"{path}: {expected}: {problems}") from exc
    except yaml.YAMLError as exc:  # its text may quote the line, a password with it
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise _fail(f"{path}: not valid YAML{where}") from exc
    except OSError as exc:
        raise _fail(f"{path}: {exc.strerror or exc}") from exc


def _chosen(scenarios: list[Scenario], only: list[str]) -> list[Scenario]:
    chosen = [s for s in scenarios if not only or s.id in only or s.kind in only]
    if not chosen:
        raise _fail(f"no scenario has an id or kind among {', '.join(only)}")
    return chosen


async def _run(
    scenarios: list[Scenario], url: str | None, credentials: Path | None, timeout_s: float | None
) -> Report:
    from sstools.evaluation.runner import (
        DEFAULT_TURN_TIMEOUT_S,
        Target,
        in_process,
        model_name,
        router_name,
        run_scenarios,
        turn_timeout_s,
    )

    if url is not None:
        if credentials is None:
            raise _fail("--url needs --credentials FILE (a user per role to sign in as)")
        import httpx

        plain = httpx.URL(url).copy_with(userinfo=b"")  # a report never carries a password
        target = Target(url=url, credentials=_credentials(credentials), description=str(plain))
        # That server's model settings are not known here: 120 s unless --timeout says.
        return await run_scenarios(
            target,
            scenarios,
            model="the server's configured model",
            turn_timeout_s=timeout_s or DEFAULT_TURN_TIMEOUT_S,
        )
    from sstools.config import Settings
    from sstools.environments import ConfigError
    from sstools.logs import configure_logging

    try:
        settings = Settings()
    except ValueError as exc:
        raise _fail(f"configuration error: {exc}") from exc
    configure_logging("WARNING")  # the report is the output; the app's lines would bury it
    try:
        async with in_process(settings) as target:
            return await run_scenarios(
                target,
                scenarios,
                model=model_name(settings),
                router=router_name(settings),
                turn_timeout_s=timeout_s or turn_timeout_s(settings),
            )
    except ConfigError as exc:
        raise _fail(str(exc)) from exc


def eval_command(
    scenarios: Annotated[
        Path | None,
        typer.Option(help="A scenario file (YAML); default: the Story 1–3 acceptance scenarios"),
    ] = None,
    only: Annotated[
        list[str] | None, typer.Option(help="Run only scenarios with this id or kind (repeatable)")
    ] = None,
    url: Annotated[
        str | None,
        typer.Option(help="A running sstools to evaluate; default: start one in process"),
    ] = None,
    credentials: Annotated[
        Path | None,
        typer.Option(help="With --url: YAML `ROLE: {username, password}` to sign in as"),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON")] = False,
    min_accuracy: Annotated[
        float | None,
        typer.Option(min=0.0, max=1.0, help="Exit 1 when the overall accuracy is below this"),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            min=1.0,
            help="Seconds one message may take to be answered; default: from the model's "
            "SSTOOLS_LLM_TIMEOUT_S and SSTOOLS_LLM_RETRIES (at least 120; 120 with --url)",
        ),
    ] = None,
    from_feedback: Annotated[
        bool,
        typer.Option(
            "--from-feedback",
            help="Run nothing: write the answers people rated 👎 in the chat as scenarios "
            "(YAML, their expectations to be filled in) to --output or stdout",
        ),
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="With --from-feedback: the file to write"),
    ] = None,
) -> None:
    """Run scenarios through the agent API and print accuracy per kind; writes are always denied."""
    if from_feedback:
        running = [scenarios, only, url, credentials, min_accuracy, timeout]
        if json_output or any(option is not None for option in running):
            raise _fail("--from-feedback runs nothing: it takes only --output")
        _write_feedback_scenarios(output)
        return
    if output is not None:
        raise _fail("--output goes with --from-feedback")
    import httpx

    from sstools.evaluation._api import ApiError
    from sstools.evaluation.report import render
    from sstools.evaluation.scenarios import ScenarioFileError, load_scenarios

    try:
        chosen = _chosen(load_scenarios(scenarios).scenarios, only or [])
        report = asyncio.run(_run(chosen, url, credentials, timeout))
    except ScenarioFileError as exc:
        raise _fail(str(exc)) from exc
    except (ApiError, OSError) as exc:
        raise _fail(str(exc)) from exc
    except httpx.HTTPError as exc:
        raise _fail(f"the server did not answer: {exc or type(exc).__name__}") from exc
    typer.echo(report.model_dump_json(indent=2) if json_output else render(report))
    if min_accuracy is not None and report.overall.accuracy < min_accuracy:
        raise typer.Exit(1)


def _write_feedback_scenarios(output: Path | None) -> None:
    from sstools.config import Settings
    from sstools.evaluation.feedback import feedback_scenarios, read_rated_down, render
    from sstools.logs import configure_logging

    try:
        settings = Settings()
    except ValueError as exc:
        raise _fail(f"configuration error: {exc}") from exc
    configure_logging("WARNING")  # the scenarios are the output
    scenarios = feedback_scenarios(asyncio.run(read_rated_down(settings)))
    if not scenarios:
        typer.echo("sstools eval: no answer has been rated 👎 yet; nothing written", err=True)
        return
    text = render(scenarios)
    if output is None:
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _fail(f"{output}: {exc.strerror or exc}") from exc
    typer.echo(f"sstools eval: {len(scenarios)} scenarios from 👎 written to {output}", err=True)
