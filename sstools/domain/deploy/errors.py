"""What a deploy plan refuses, as one small tree (the HTTP edge, ``sstools.app``, picks statuses)::

DeployError
├── UnknownDashboard     not in the source environment or the git ref
├── UnknownEnvironment
├── InvalidPlanRequest   names the request field
├── SnapshotUnusable     (rollback.py) the snapshot cannot be trusted or read
├── StalePlan            the approved digest is not the plan's now: the target moved since
└── VersionSkew          the target's Superset release has no place for a field's content
"""

from __future__ import annotations

from sstools.errors import SstoolsError
from sstools.texts import deploy as texts
from sstools.texts import http as http_texts


class DeployError(SstoolsError):
    pass


class UnknownDashboard(DeployError):
    def __init__(self, dashboard: int | str, where: str) -> None:
        super().__init__(texts.UNKNOWN_DASHBOARD.format(dashboard=dashboard, where=where))
        self.dashboard = dashboard


class UnknownEnvironment(DeployError):
    def __init__(self, env_id: str, known: list[str]) -> None:
        super().__init__(http_texts.UNKNOWN_ENVIRONMENT.format(env=env_id, known=", ".join(known)))
        self.env_id = env_id


class InvalidPlanRequest(DeployError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class StalePlan(DeployError):
    """An apply (deploy, rollback, restore) whose approved digest no longer matches the plan."""

    def __init__(self, message: str, current_digest: str) -> None:
        super().__init__(message)
        self.message = message
        self.current_digest = current_digest


class VersionSkew(DeployError):
    """A source file holds content the target's (older) Superset release cannot take."""

    def __init__(
        self,
        *,
        source: str | None,
        target: str,
        target_env_id: str,
        kind: str,
        name: str,
        field: str,
    ) -> None:
        self.message = texts.version_skew(
            source=source, target=target, env=target_env_id, kind=kind, name=name, field=field
        )
        super().__init__(self.message)
        self.source = source
        self.target = target
        self.field = field
