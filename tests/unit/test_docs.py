"""Docs cannot drift: every setting, sandbox setting, API route and CLI command is documented."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import typer.main

from sstools.cli import app as cli_app
from sstools.config import Settings
from sstools.sandbox import SandboxSettings

ROOT = Path(__file__).parents[2]


def test_every_setting_is_documented() -> None:
    text = (ROOT / "docs" / "configuration.md").read_text()
    for name in Settings.model_fields:
        assert f"`SSTOOLS_{name.upper()}`" in text, name
    for name in SandboxSettings.model_fields:
        assert f"`SSTOOLS_SANDBOX_{name.upper()}`" in text, name


async def test_every_api_route_is_documented(client: httpx.AsyncClient) -> None:
    text = (ROOT / "docs" / "api.md").read_text()
    documented = {
        re.sub(r"\{(\w*_)?id\}", "{id}", re.sub(r"\?.*", "", path))
        for path in re.findall(r"`(?:GET|POST|PUT|DELETE) (/api/[^` ]+)", text)
    }
    paths = (await client.get("/openapi.json")).json()["paths"]
    for path in paths:
        normalized = re.sub(r"\{(\w*_)?id\}", "{id}", path)
        assert normalized in documented, path


def test_every_cli_command_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    group = typer.main.get_group(cli_app)
    for name, command in group.commands.items():
        subcommands = getattr(command, "commands", None)
        for sub in subcommands or [None]:
            words = f"sstools {name}" + (f" {sub}" if sub else "")
            assert words in readme, words
