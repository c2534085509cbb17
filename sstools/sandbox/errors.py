"""The sandbox's one error type, apart from the modules that raise it."""

from __future__ import annotations


class SandboxError(Exception):
    """The sandbox could not be installed, started or seeded; the message says what to do."""
