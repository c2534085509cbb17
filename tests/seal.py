"""Tests are sealed from the machine they run on: no shell settings, no traffic off loopback.

A developer's shell may set ``SSTOOLS_LLM_BASE_URL`` (test prompts, demo data included, would
reach a real model), ``SSTOOLS_HITL=all`` or ``SSTOOLS_MODE=production`` (flows silently change).
Only the variables meant for tests survive; any socket connection to an address off this machine
fails the test that opened it, even where the code under test swallows the error.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from typing import Any

KEPT_PREFIX = "SSTOOLS_TEST_"
KEPT_NAMES = frozenset({"SSTOOLS_SCREENSHOTS"})


def seal_environment() -> list[str]:
    """Drop every ``SSTOOLS_*`` variable but the test ones; returns the names dropped."""
    dropped = [
        name
        for name in os.environ
        if name.startswith("SSTOOLS_")
        and not name.startswith(KEPT_PREFIX)
        and name not in KEPT_NAMES
    ]
    for name in dropped:
        del os.environ[name]
    return dropped


class OffMachineConnection(OSError):
    """A test tried to reach an address that is not loopback."""


def is_loopback(address: Any) -> bool:
    if not isinstance(address, tuple):  # AF_UNIX paths and socketpairs stay on the machine
        return True
    host = str(address[0])
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False  # an unresolved name: refuse rather than guess where it points


class LoopbackGuard:
    """Wraps ``socket.socket.connect``/``connect_ex`` (asyncio's connections go through them)."""

    def __init__(self, socket_class: type[Any] = socket.socket) -> None:
        self.attempts: list[str] = []
        self._class = socket_class

    def _check(self, address: Any) -> None:
        if not is_loopback(address):
            self.attempts.append(repr(address))
            raise OffMachineConnection(f"tests may only connect to loopback, not {address!r}")

    def install(self) -> None:
        guard = self
        original_connect, original_connect_ex = self._class.connect, self._class.connect_ex

        def connect(sock: Any, address: Any) -> None:
            guard._check(address)
            original_connect(sock, address)

        def connect_ex(sock: Any, address: Any) -> int:
            guard._check(address)
            result: int = original_connect_ex(sock, address)
            return result

        self._class.connect = connect
        self._class.connect_ex = connect_ex

    def take_attempts(self) -> list[str]:
        attempts, self.attempts = self.attempts, []
        return attempts
