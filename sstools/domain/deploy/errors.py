"""What a deploy plan refuses, as one small tree::

DeployError
├── UnknownDashboard     (→ 404: not in the source environment or the git ref)
├── UnknownEnvironment   (→ 404)
└── InvalidPlanRequest   (→ 422, naming the request field)
"""

from __future__ import annotations


class DeployError(Exception):
    status = 500


class UnknownDashboard(DeployError):
    status = 404

    def __init__(self, dashboard: int | str, where: str) -> None:
        super().__init__(f"дашборда {dashboard} нет в {where}")
        self.dashboard = dashboard


class UnknownEnvironment(DeployError):
    status = 404

    def __init__(self, env_id: str, known: list[str]) -> None:
        super().__init__(f"unknown environment {env_id!r} (known: {', '.join(known)})")
        self.env_id = env_id


class InvalidPlanRequest(DeployError):
    status = 422

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
