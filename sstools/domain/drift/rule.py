"""The rule: one dashboard in one environment against its two references.

The references of a dashboard in environment E are its copy in E's upstream environment (the
previous stage: dev → staging → prod; the first stage has none) and its files on git ``main``.
A reference that lacks the dashboard does not count. For each one that has it we know whether
E's copy differs from it and when it last changed (``changed_on`` upstream, the time of the last
commit touching it on ``main``). Then, in this order:

- ``missing``: E lacks it, and a reference has it;
- ``behind_source``: some reference has a *different* version *newer* than E's;
- ``edited_here``: at least one reference has it, E's copy differs from *every* reference that
  has it and is *newer* than each: it was changed directly in E, and nobody took it from there
  (a copy equal to its upstream came from there; one equal to ``main`` was adopted into git);
- ``in_sync``: anything else — equal to a reference, or no reference has it (a dashboard only E
  has and git does not track: new work, not drift).

An unknown time is never newer, and an unknown comparison (a plan that could not be made) never
differs, so a doubt never reports drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sstools.domain.drift.models import DriftState


@dataclass(frozen=True)
class Reference:
    """A reference that has the dashboard: when it last changed, and whether E's copy differs."""

    changed_on: datetime | None
    differs: bool | None


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def newer(one: datetime | None, than: datetime | None) -> bool:
    """``one`` is later than ``than``; unknown on either side is never newer."""
    return one is not None and than is not None and _utc(one) > _utc(than)


def drift_state(
    present: bool, changed_on: datetime | None, references: list[Reference | None]
) -> DriftState | None:
    """The dashboard's state in E; None when neither E nor any reference has it."""
    having = [one for one in references if one is not None]
    if not present:
        return DriftState.missing if having else None
    if any(ref.differs is True and newer(ref.changed_on, changed_on) for ref in having):
        return DriftState.behind_source
    if having and all(ref.differs is True and newer(changed_on, ref.changed_on) for ref in having):
        return DriftState.edited_here
    return DriftState.in_sync
