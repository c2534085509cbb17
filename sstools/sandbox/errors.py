"""The sandbox's one error type, apart from the modules that raise it."""

from __future__ import annotations

from sstools.errors import SstoolsError


class SandboxError(SstoolsError):
    """The sandbox could not be installed, started or seeded; the message says what to do."""
