"""How many people approve a write, by the stage of the environment it writes into.

``SSTOOLS_APPROVALS_DEV``, ``…_STAGING`` and ``…_PROD`` (1 or 2; prod 2 by default) are read here
and nowhere else: the agent's cards, the domain API's apply routes and SQL writes all ask this
object, so a stage that needs two people needs them by every route.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sstools.config import Settings
from sstools.environments import EnvironmentRegistry, Stage


@dataclass(frozen=True)
class ApprovalPolicy:
    by_stage: Mapping[Stage, int]

    @classmethod
    def from_settings(cls, settings: Settings) -> ApprovalPolicy:
        return cls(
            {
                Stage.dev: settings.approvals_dev,
                Stage.staging: settings.approvals_staging,
                Stage.prod: settings.approvals_prod,
            }
        )

    def needed(self, stage: Stage | None) -> int:
        """People who approve a write into ``stage``; one with no environment (git)."""
        return 1 if stage is None else self.by_stage[stage]

    def needed_for(self, environments: EnvironmentRegistry, env_id: str | None) -> int:
        """As :meth:`needed`, for an environment by id (an unknown one: one person)."""
        return self.needed(environments.stage_of(env_id))

    @property
    def one_person_in_dev(self) -> bool:
        """Whether a dev write is one person's call (so «одобрять похожие» may be offered)."""
        return self.by_stage[Stage.dev] == 1
