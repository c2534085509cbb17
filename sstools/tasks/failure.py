"""The verdict a workflow or a step gives: end the task `failed`, with a reason and a report."""

from __future__ import annotations

from typing import Any

from sstools.errors import SstoolsError


class TaskFailed(SstoolsError):
    """End the task `failed` with ``reason`` and, where useful, a partial ``result``."""

    def __init__(self, reason: str, result: dict[str, Any] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.result = result
