"""The peer's own virtual environment: preset-cli, pinned, for the bench only.

It lives in ``.bench-venvs/preset-cli`` (gitignored) and is made by the bench on first use, again
only when ``bench/peer-requirements.txt`` changes. preset-cli is never a dependency of sstools.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

REQUIREMENTS = Path(__file__).with_name("peer-requirements.txt")
VENV = Path(__file__).resolve().parents[1] / ".bench-venvs" / "preset-cli"


class PeerUnavailable(Exception):
    """preset-cli could not be installed; the reason is the message."""


def superset_cli() -> Path:
    """The peer's ``superset-cli``, installed first if needed (a minute or so)."""
    digest = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    marker = VENV / ".requirements"
    command = VENV / "bin" / "superset-cli"
    if marker.is_file() and marker.read_text() == digest and command.is_file():
        return command
    print("installing preset-cli into .bench-venvs/preset-cli …", file=sys.stderr, flush=True)
    shutil.rmtree(VENV, ignore_errors=True)
    steps = (
        [sys.executable, "-m", "venv", str(VENV)],
        [str(VENV / "bin" / "python"), "-m", "pip", "install", "-q", "-r", str(REQUIREMENTS)],
    )
    for step in steps:
        try:
            done = subprocess.run(  # noqa: S603 - python -m venv, pip in it
                step, capture_output=True, text=True, check=False, timeout=900
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise PeerUnavailable(f"{' '.join(step[:3])}: {error}") from error
        if done.returncode != 0:
            lines = [line for line in done.stderr.splitlines() if not line.startswith("WARNING")]
            raise PeerUnavailable("\n".join(lines[-8:]) or f"exit {done.returncode}")
    if not command.is_file():
        raise PeerUnavailable(f"{command} missing after the install")
    marker.write_text(digest)
    return command
