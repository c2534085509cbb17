"""``sstools report``'s approvals: per stage, how often a card was approved, how long a person
took to decide it and how often they edited it, from the stored cards and held writes.

The source is the rows themselves (``confirmations``: the agent's cards; ``write_requests``: the
writes the domain API held for a second person), not the audit log: each keeps when it was asked,
when and how it was closed, and nothing else keeps every expiry. A card's stage is the one its
card showed (the guardrail's decision, stored with it); a held write's is its environment's stage
in the environments file now (``unknown`` when the file does not name it).

A card is *decided* when a person closed it: approved (where two people are needed, by the
second), denied, edited (a new card replaces it) or ``target_moved`` (the second person approved
a plan that had changed). Expired and still waiting cards are nobody's decision.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.storage.confirmations import card_stage
from sstools.storage.models import Confirmation, WriteRequest

# Stages in the order the table lists them; ``none``: a git write, which has no environment.
_ORDER = ("dev", "staging", "prod", "none", "unknown")
_APPROVED = frozenset({"approved", "running"})  # running: approved, its write being started
_DECIDED = _APPROVED | {"denied", "edited", "target_moved"}
_WAITING = frozenset({"pending", "awaiting_first", "awaiting_second"})


class StageApprovals(BaseModel):
    """One stage's cards asked in the span, and how they ended."""

    stage: str  # dev, staging, prod; none: a git write; unknown: an environment no longer named
    asked: int
    approved: int
    denied: int
    edited: int
    target_moved: int  # approved by the second person, but the plan had changed: nothing written
    expired: int
    waiting: int  # nobody has decided them yet
    approval_rate: float | None  # approved ÷ decided; None when nobody decided any
    median_seconds_to_decide: float | None  # from asked to the decision, over the decided ones
    edited_share: float | None  # edited ÷ decided


@dataclass(frozen=True)
class _Card:
    stage: str
    status: str
    asked_at: datetime
    decided_at: datetime | None


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # SQLite keeps them naive


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _figures(stage: str, cards: list[_Card]) -> StageApprovals:
    count = defaultdict[str, int](int)
    for card in cards:
        count[card.status] += 1
    decided = [card for card in cards if card.status in _DECIDED]
    approved = sum(count[status] for status in _APPROVED)
    took = [
        (_aware(card.decided_at) - _aware(card.asked_at)).total_seconds()
        for card in decided
        if card.decided_at is not None
    ]
    return StageApprovals(
        stage=stage,
        asked=len(cards),
        approved=approved,
        denied=count["denied"],
        edited=count["edited"],
        target_moved=count["target_moved"],
        expired=count["expired"],
        waiting=sum(count[status] for status in _WAITING),
        approval_rate=_ratio(approved, len(decided)),
        median_seconds_to_decide=statistics.median(took) if took else None,
        edited_share=_ratio(count["edited"], len(decided)),
    )


def _per_stage(cards: Iterable[_Card]) -> list[StageApprovals]:
    by_stage: dict[str, list[_Card]] = defaultdict(list)
    for card in cards:
        by_stage[card.stage].append(card)
    order = sorted(by_stage, key=lambda stage: _ORDER.index(stage) if stage in _ORDER else 9)
    return [_figures(stage, by_stage[stage]) for stage in order]


async def approval_figures(
    session: AsyncSession, since: datetime, until: datetime, stages: Mapping[str, str]
) -> list[StageApprovals]:
    """Per stage, the cards and held writes asked in ``[since, until)``; ``stages``: each
    configured environment's stage, for the held writes (a card keeps its own)."""
    cards = await session.scalars(
        select(Confirmation).where(
            Confirmation.created_at >= since, Confirmation.created_at < until
        )
    )
    held = await session.execute(
        select(
            WriteRequest.env_id,
            WriteRequest.status,
            WriteRequest.created_at,
            WriteRequest.decided_at,
        ).where(WriteRequest.created_at >= since, WriteRequest.created_at < until)
    )
    found = [
        _Card(card_stage(row) or "none", row.status, row.created_at, row.decided_at)
        for row in cards
    ]
    found += [
        _Card(stages.get(env_id, "unknown"), status, asked_at, decided_at)
        for env_id, status, asked_at, decided_at in held
    ]
    return _per_stage(found)


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 60:
        return f"{seconds:.0f}s"
    if seconds < 3600:
        return f"{seconds / 60:.1f}m"
    return f"{seconds / 3600:.1f}h"


def render_lines(stages: list[StageApprovals]) -> list[str]:
    """The approvals table, for the report's text."""
    lines = [
        "Approvals by stage (cards asked in this period; rate and edits over the decided ones)",
        "  stage    asked  approved  denied  edited  moved  expired  waiting"
        "  approval rate  median to decide  edited",
    ]
    for one in stages:
        lines.append(
            f"  {one.stage:<7}  {one.asked:>5}  {one.approved:>8}  {one.denied:>6}"
            f"  {one.edited:>6}  {one.target_moved:>5}  {one.expired:>7}  {one.waiting:>7}"
            f"  {_percent(one.approval_rate):>13}  {_duration(one.median_seconds_to_decide):>16}"
            f"  {_percent(one.edited_share):>6}"
        )
    if not stages:
        lines.append("  (no cards in this period)")
    return lines
