"""The fleet drift watch: each environment against git ``main`` and its upstream stage.

See docs/drift.md for the rule (:mod:`sstools.domain.drift.rule`) and what it costs.
"""

from sstools.domain.drift import scheduled  # registers the watch's workflow with DBOS
from sstools.domain.drift.check import check_drift, upstream_of
from sstools.domain.drift.models import (
    DashboardDrift,
    DriftReport,
    DriftState,
    EnvironmentDrift,
)
from sstools.domain.drift.rule import Reference, drift_state

__all__ = [
    "DashboardDrift",
    "DriftReport",
    "DriftState",
    "EnvironmentDrift",
    "Reference",
    "check_drift",
    "drift_state",
    "scheduled",
    "upstream_of",
]
