"""A dashboard's timeline: every point it can be brought back to (see docs/deploy.md)."""

from sstools.domain.timeline.gather import (
    DashboardMissing,
    dashboard_timeline,
    kept_points,
    live_point,
    newest_first,
)
from sstools.domain.timeline.models import PointKind, RestoreSource, Timeline, TimelinePoint

__all__ = [
    "DashboardMissing",
    "PointKind",
    "RestoreSource",
    "Timeline",
    "TimelinePoint",
    "dashboard_timeline",
    "kept_points",
    "live_point",
    "newest_first",
]
