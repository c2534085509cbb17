"""`sstools serve --workers N`: refused on SQLite, N real worker processes on PostgreSQL."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.rig import run_sstools, unanswering_dev_environment


def _environ(tmp_path: Path, database_url: str) -> dict[str, str]:
    unanswering_dev_environment(tmp_path)
    return {
        **os.environ,
        "SSTOOLS_DATABASE_URL": database_url,
        "SSTOOLS_ENVIRONMENTS_FILE": str(tmp_path / "environments.yaml"),
        "SSTOOLS_LOG_LEVEL": "INFO",
    }


def test_several_workers_on_sqlite_are_refused(tmp_path: Path) -> None:
    environ = _environ(tmp_path, f"sqlite:///{tmp_path / 'one.db'}")
    result = run_sstools(tmp_path, environ, "serve", "--workers", "2")
    assert result.returncode == 2
    assert "--workers above 1 needs SSTOOLS_DATABASE_URL=postgresql://" in result.stderr


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.postgres
def test_two_workers_serve_one_port_on_postgres(tmp_path: Path, pg_url: str) -> None:
    port = _free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "sstools", "serve", "--port", str(port), "--workers", "2"],
            env={**_environ(tmp_path, pg_url), "TMPDIR": str(tmp_path)},
            cwd=tmp_path,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 120
        pids: set[str] = set()
        while len(pids) < 2 or not _healthy(port):
            assert server.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
            pids = set(re.findall(r"Started server process \[(\d+)\]", log.read_text()))
        statuses = {httpx.get(f"http://127.0.0.1:{port}/healthz").status_code for _ in range(20)}
        scrape = httpx.get(f"http://127.0.0.1:{port}/metrics")
        # Both workers write their counts where either one's /metrics merges them.
        counts_written = {path.name for path in tmp_path.glob("sstools-metrics-*/*.db")}
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(60)
    assert statuses == {200}
    assert len(pids) == 2
    assert scrape.status_code == 200
    assert "sstools_active_streams" in scrape.text
    assert {name.rsplit("_", 1)[-1] for name in counts_written} == {f"{pid}.db" for pid in pids}
    assert list(tmp_path.glob("sstools-metrics-*")) == []  # removed when serve stops


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.mark.postgres
def test_workers_starting_together_on_an_empty_database_all_migrate_it(
    tmp_path: Path,
    pg_url: str,
) -> None:
    migrating = [
        subprocess.Popen(
            [sys.executable, "-c", f"from sstools.storage.db import migrate; migrate({pg_url!r})"],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])},
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outcomes = [(p.communicate(timeout=120)[1], p.returncode) for p in migrating]
    assert [stderr for stderr, code in outcomes if code != 0] == []
