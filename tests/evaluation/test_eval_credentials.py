"""`sstools eval --credentials`: a malformed file is refused without quoting its passwords."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sstools.cli import app as cli_app

SECRET = "hunter2-do-not-print"


@pytest.mark.parametrize(
    "content",
    [
        f"analyst: {{password: {SECRET}}}\n",  # no username
        f"analyst: {{username: a, password: {SECRET}\n",  # broken YAML on the password's line
        f"nobody: {{username: a, password: {SECRET}}}\n",  # no such role
    ],
)
def test_a_bad_credentials_file_is_refused_without_its_passwords(
    tmp_path: Path, content: str
) -> None:
    credentials = tmp_path / "credentials.yaml"
    credentials.write_text(content)
    result = CliRunner().invoke(
        cli_app,
        ["eval", "--url", "http://eval:pw@127.0.0.1:9", "--credentials", str(credentials)],
    )
    assert result.exit_code == 2
    assert str(credentials) in result.output
    assert SECRET not in result.output
