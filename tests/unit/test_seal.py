"""The test suite's seal: the shell's settings are dropped, and nothing leaves loopback."""

from __future__ import annotations

import os
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


def test_the_suite_itself_runs_sealed() -> None:
    assert not [name for name in os.environ if name in {"SSTOOLS_LLM_BASE_URL", "SSTOOLS_MODE"}]


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
