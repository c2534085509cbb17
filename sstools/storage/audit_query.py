"""The audit log read back as agent actions: one row per write the agent (chat or MCP) or the
domain API asked for that was decided — approved, refused, or failed.

The log holds several rows per action (the requester's approval, the second person's, the tool
call, the task's start and end); one of them closes the action and stands for it here (its
*anchor*):

- ``confirmation_decided`` / ``approval_decided``: a chat card decided by its requester alone,
  or by the second person (``detail.confirmation_id`` → ``confirmations``);
- ``write_request_decided`` (not the requester's first word): a write held by the domain API,
  asked through MCP or a script (``detail.write_request_id`` → ``write_requests``);
- ``tool_call`` of a write on the MCP face that no request holds (run at once, declined, or
  refused before any request).

Filters and role scoping run in SQL and pages are keyset pages, newest first, so the first page
of 100 000 rows reads one page's worth of rows, not the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import ColumnElement, and_, case, func, literal, or_, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.storage.models import AuditEntry, Confirmation, ConversationEvent, WriteRequest

PAGE_SIZE_MAX = 100

CARD_ACTIONS = ("confirmation_decided", "approval_decided")
REQUEST_DECIDED = "write_request_decided"
REQUEST_ASKED = "approval_requested"
TOOL_CALL = "tool_call"

# The agent's tool a held request's kind is (a request stores its kind, a card its tool).
TOOL_OF_KIND = {
    "deploy": "deploy_dashboard",
    "migration": "execute_migration",
    "rollback": "rollback_deploy",
    "restore": "restore_backup",
    "sql": "superset_execute_sql",
    "dataset": "superset_create_dataset",
}
WRITE_TOOLS = (
    "deploy_dashboard",
    "execute_migration",
    "rollback_deploy",
    "restore_backup",
    "run_backup",
    "superset_execute_sql",
    "superset_create_dataset",
    "create_branch",
    "commit_changes",
)


class AuditOutcome(StrEnum):
    """How an action ended, as the filter names it."""

    approved = "approved"  # approved and sent on (its task says how it went)
    refused = "refused"  # a person said no, or a rule did (a role, a moved target, no word)
    failed = "failed"  # the call itself failed (an error, no answer)


_APPROVED = ("approved", "ok")
_REFUSED = (
    "denied",
    "target_moved",
    "declined",
    "refused",
    "refused_no_elicitation",
    "permission_denied",
    "stale_plan",
)


class Face(StrEnum):
    """Where the action was asked."""

    chat = "chat"
    mcp = "mcp"
    api = "api"


@dataclass(frozen=True)
class Cursor:
    """Where the next page starts: right after the anchor at ``at`` with ``id``."""

    at: datetime
    id: int


@dataclass(frozen=True)
class AuditFilters:
    person: str | None = None  # who asked (or, for an engineer's own view, took part)
    env_id: str | None = None
    tool: str | None = None
    outcome: AuditOutcome | None = None
    since: datetime | None = None  # inclusive
    until: datetime | None = None  # exclusive
    own: str | None = None  # role scoping: only actions this person asked for or decided


@dataclass(frozen=True)
class Anchor:
    """One action's closing row, with its card or held request when it has one."""

    entry: AuditEntry
    card: Confirmation | None
    request: WriteRequest | None

    @property
    def outcome(self) -> AuditOutcome:
        return outcome_of(self.entry.outcome)

    @property
    def requester(self) -> str | None:
        asked = self.entry.detail.get("requested_by")
        return str(asked) if asked else self.entry.username

    @property
    def tool(self) -> str | None:
        if self.card is not None:
            return self.card.tool
        if self.request is not None:
            return TOOL_OF_KIND.get(self.request.kind, self.request.kind)
        tool = self.entry.detail.get("tool")
        return str(tool) if tool else None

    @property
    def env_id(self) -> str | None:
        if self.card is not None:
            return self.card.env_id
        return self.request.env_id if self.request is not None else self.entry.env_id


def outcome_of(outcome: str) -> AuditOutcome:
    """An anchor's stored outcome as the filter's three (a relayed HTTP 4xx is a refusal)."""
    if outcome in _APPROVED:
        return AuditOutcome.approved
    if outcome in _REFUSED or (len(outcome) == 3 and outcome.startswith("4")):
        return AuditOutcome.refused
    return AuditOutcome.failed


def _detail(key: str) -> ColumnElement[str]:
    value: ColumnElement[str] = AuditEntry.detail[key].as_string()
    return value


def _card_kind() -> ColumnElement[str]:
    value: ColumnElement[str] = Confirmation.event["decision"]["kind"].as_string()
    return value


def _outcome_sql() -> ColumnElement[str]:
    outcome = AuditEntry.outcome
    return case(
        (outcome.in_(_APPROVED), literal(AuditOutcome.approved.value)),
        (
            or_(outcome.in_(_REFUSED), and_(func.length(outcome) == 3, outcome.like("4%"))),
            literal(AuditOutcome.refused.value),
        ),
        else_=literal(AuditOutcome.failed.value),
    )


def _anchors(*, walk_time: bool) -> ColumnElement[bool]:
    """Which rows close an action (see the module's docstring).

    ``walk_time``: the action is read through an expression, so no index serves it: by the
    action's index the database would fetch every tool call (most of the log) and sort them all;
    walking the time index newest first, an unfiltered page stops after its rows."""
    action = AuditEntry.action.concat("") if walk_time else AuditEntry.action
    return or_(
        # An edited card closes nothing: the card made again from the edit does.
        and_(action.in_(CARD_ACTIONS), AuditEntry.outcome != "edited"),
        and_(action == REQUEST_DECIDED, AuditEntry.outcome != "first_approved"),
        and_(
            action == TOOL_CALL,
            _detail("face") == Face.mcp.value,
            _detail("kind") == "write",
            AuditEntry.outcome != "held",
        ),
    )


def _tool_sql() -> ColumnElement[str | None]:
    by_kind = case(
        *((WriteRequest.kind == kind, literal(tool)) for kind, tool in TOOL_OF_KIND.items()),
        else_=WriteRequest.kind,
    )
    return func.coalesce(Confirmation.tool, by_kind, _detail("tool"))


def _conditions(filters: AuditFilters) -> list[ColumnElement[bool]]:
    requester = func.coalesce(_detail("requested_by"), AuditEntry.username)
    narrowed = filters.own or filters.person or filters.env_id or filters.tool or filters.outcome
    where = [
        _anchors(walk_time=not narrowed),
        # A read a person was asked to confirm (SSTOOLS_HITL=all) is no write.
        or_(Confirmation.id.is_(None), _card_kind() != "read"),
    ]
    if filters.own is not None:
        where.append(or_(requester == filters.own, AuditEntry.username == filters.own))
    if filters.person:
        where.append(requester == filters.person)
    if filters.env_id:
        env = func.coalesce(Confirmation.env_id, WriteRequest.env_id, AuditEntry.env_id)
        where.append(env == filters.env_id)
    if filters.tool:
        where.append(_tool_sql() == filters.tool)
    if filters.outcome is not None:
        where.append(_outcome_sql() == filters.outcome.value)
    if filters.since is not None:
        where.append(AuditEntry.at >= filters.since)
    if filters.until is not None:
        where.append(AuditEntry.at < filters.until)
    return where


def _query(filters: AuditFilters) -> Any:
    return (
        select(AuditEntry, Confirmation, WriteRequest)
        .outerjoin(Confirmation, Confirmation.id == _detail("confirmation_id"))
        .outerjoin(WriteRequest, WriteRequest.id == _detail("write_request_id"))
        .where(*_conditions(filters))
    )


async def anchors_page(
    session: AsyncSession, filters: AuditFilters, *, size: int, after: Cursor | None = None
) -> tuple[list[Anchor], Cursor | None]:
    """One page of actions, newest first, and where the next starts (None: this is the last)."""
    size = max(1, min(size, PAGE_SIZE_MAX))
    query = _query(filters)
    if after is not None:
        query = query.where(tuple_(AuditEntry.at, AuditEntry.id) < tuple_(after.at, after.id))
    query = query.order_by(AuditEntry.at.desc(), AuditEntry.id.desc()).limit(size + 1)
    rows = (await session.execute(query)).all()
    found = [Anchor(entry, card, request) for entry, card, request in rows[:size]]
    more = len(rows) > size
    last = found[-1].entry if more and found else None
    return found, Cursor(last.at, last.id) if last is not None else None


async def all_anchors(session: AsyncSession, filters: AuditFilters, *, limit: int) -> list[Anchor]:
    """Every action the filters let through, newest first, at most ``limit`` (an export)."""
    query = _query(filters).order_by(AuditEntry.at.desc(), AuditEntry.id.desc()).limit(limit)
    return [Anchor(*row) for row in (await session.execute(query)).all()]


async def request_faces(session: AsyncSession, request_ids: Sequence[str]) -> dict[str, Face]:
    """Where each held request was asked: MCP when its ``approval_requested`` row says so."""
    if not request_ids:
        return {}
    rows = await session.execute(
        select(_detail("write_request_id"), _detail("face")).where(
            AuditEntry.action == REQUEST_ASKED,
            _detail("write_request_id").in_(list(request_ids)),
        )
    )
    return {str(rid): Face.mcp if face == Face.mcp.value else Face.api for rid, face in rows}


async def card_results(
    session: AsyncSession, cards: Sequence[Confirmation]
) -> dict[str, dict[str, Any]]:
    """Each card's ``tool_result`` event (outcome, message, task), by card id: how its call
    went, where the card does not name its task (a write one person approved)."""
    if not cards:
        return {}
    by_call = {(card.conversation_id, card.call_id): card.id for card in cards}
    rows = await session.scalars(
        select(ConversationEvent).where(
            ConversationEvent.conversation_id.in_({card.conversation_id for card in cards}),
            ConversationEvent.type == "tool_result",
        )
    )
    out: dict[str, dict[str, Any]] = {}
    for event in rows:
        card_id = by_call.get((event.conversation_id, str(event.data.get("call_id"))))
        if card_id is not None:
            out[card_id] = event.data
    return out
