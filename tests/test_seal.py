"""The test suite's seal: the shell's settings are dropped, and nothing leaves loopback."""

from __future__ import annotations

import ast
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.seal import LoopbackGuard, OffMachineConnection, seal_environment


def test_shell_settings_are_dropped_and_test_ones_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSTOOLS_LLM_BASE_URL", "https://models.example/v1")
    monkeypatch.setenv("SSTOOLS_HITL", "all")
    monkeypatch.setenv("SSTOOLS_TEST_POSTGRES_URL", "postgresql://x@127.0.0.1/test")
    monkeypatch.setenv("SSTOOLS_SCREENSHOTS", "docs/screenshots")

    dropped = seal_environment()

    assert {"SSTOOLS_LLM_BASE_URL", "SSTOOLS_HITL"} <= set(dropped)
    assert "SSTOOLS_LLM_BASE_URL" not in os.environ
    assert "SSTOOLS_HITL" not in os.environ
    assert os.environ["SSTOOLS_TEST_POSTGRES_URL"] == "postgresql://x@127.0.0.1/test"
    assert os.environ["SSTOOLS_SCREENSHOTS"] == "docs/screenshots"


ROOT = Path(__file__).parents[1]
SHELL_LEFT = "import os, tests.conftest; print([n for n in os.environ if n.startswith('SSTOOLS_')])"


def test_the_suite_itself_runs_sealed(loopback_guard: LoopbackGuard) -> None:
    """The seal is in force, not merely callable: it fails when conftest stops applying it.

    In this process, the real ``socket.socket`` refuses an address off the machine (without the
    guard the connect would time out or find no route, not raise ``OffMachineConnection``). And
    a shell's settings are gone once the suite's conftest is imported: checked in a fresh
    interpreter, since this one was sealed before any test ran.
    """
    off_machine = ("203.0.113.7", 443)  # TEST-NET-3: nothing answers there
    with socket.socket() as probe:
        probe.settimeout(0.5)
        with pytest.raises(OffMachineConnection):
            probe.connect(off_machine)
    assert loopback_guard.take_attempts() == [repr(off_machine)]

    shell = {
        **os.environ,
        "SSTOOLS_LLM_BASE_URL": "https://models.example/v1",
        "SSTOOLS_MODE": "production",
        "SSTOOLS_TEST_POSTGRES_URL": "postgresql://x@127.0.0.1/test",
    }
    result = subprocess.run(
        [sys.executable, "-c", SHELL_LEFT],
        env=shell,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    left = ast.literal_eval(result.stdout.strip().splitlines()[-1])
    assert "SSTOOLS_LLM_BASE_URL" not in left
    assert "SSTOOLS_MODE" not in left
    assert "SSTOOLS_TEST_POSTGRES_URL" in left  # the test settings survive: the probe is honest


class _RecordingSocket:
    """Stands in for socket.socket, so a broken guard could never send a packet anywhere."""

    reached: ClassVar[list[Any]] = []

    def connect(self, address: Any) -> None:
        self.reached.append(address)

    def connect_ex(self, address: Any) -> int:
        self.reached.append(address)
        return 0


@pytest.mark.parametrize(
    "address", [("203.0.113.7", 443), ("2001:db8::1", 443, 0, 0), ("models.example", 443)]
)
def test_a_connection_off_loopback_is_stopped_and_recorded(address: Any) -> None:
    guard = LoopbackGuard(_RecordingSocket)
    guard.install()
    _RecordingSocket.reached.clear()

    with pytest.raises(OffMachineConnection):
        _RecordingSocket().connect(address)
    with pytest.raises(OffMachineConnection):
        _RecordingSocket().connect_ex(address)

    assert _RecordingSocket.reached == []
    assert guard.take_attempts() == [repr(address), repr(address)]


@pytest.mark.parametrize("address", [("127.0.0.1", 8081), ("::1", 80, 0, 0), ("localhost", 5432)])
def test_loopback_connections_go_through(address: Any) -> None:
    guard = LoopbackGuard(_RecordingSocket)
    guard.install()
    _RecordingSocket.reached.clear()

    _RecordingSocket().connect(address)

    assert _RecordingSocket.reached == [address]
    assert guard.take_attempts() == []
