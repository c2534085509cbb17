"""An agent action as ``/audit`` and ``GET /api/audit`` show it: who asked and from where, what
was proposed (the tool, the environment, the objects by name), who approved, the plan's digest,
the task with its result, and the rollback that undid it — built from one page of anchors
(``storage.audit_query``) with a few queries per page, never one per row."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.environments import EnvironmentRegistry
from sstools.redaction import redact_text
from sstools.storage.audit_query import Anchor, AuditOutcome, Face, card_results, request_faces
from sstools.storage.models import TaskRecord
from sstools.web._kit import short_ids
from sstools.web._task_words import TaskView, task_views
from sstools.web.strings import UI

DIGEST_SHOWN = 12  # as the MCP face quotes a plan


class TaskRef(BaseModel):
    id: str
    short: str = Field(description="The first 8 digits, as people quote a task")
    link: str = Field(description="The task's page")


class AuditTask(TaskRef):
    kind: str
    status: str = Field(description="queued, running, succeeded, failed or cancelled")
    status_words: str
    result: list[str] = Field(description="What it did, in words (imported, not imported, …)")
    rolled_back_by: TaskRef | None = Field(description="The rollback that undid it, if one did")


class AuditRow(BaseModel):
    """One agent action that wrote or was refused."""

    id: int = Field(description="The audit log row that closed the action")
    at: datetime
    requested_by: str | None
    face: Face = Field(description="Where it was asked: chat, mcp, or api (a script)")
    tool: str | None
    title: str = Field(description="What was proposed, in words")
    env_id: str | None
    env_name: str | None
    objects: list[str] = Field(description="The objects it writes, by name")
    approved_by: list[str] = Field(description="Everyone who approved it, requester first")
    refused_by: str | None
    outcome: AuditOutcome
    outcome_words: str
    reason: str | None = Field(description="The refusal's reason, as its person gave it")
    digest: str | None = Field(description="The approved plan's digest, shortened")
    task: AuditTask | None
    call_failed: str | None = Field(
        default=None, description="Why an approved call wrote nothing, as the chat said it"
    )


class AuditPage(BaseModel):
    rows: list[AuditRow]
    next: str | None = Field(description="Pass as `after` for the next (older) page")


def _shown(text: str) -> str:
    """Words from elsewhere (a card, a person's reason) with ids cut short and secrets masked."""
    return redact_text(short_ids(text))


def _ref(task_id: str) -> TaskRef:
    return TaskRef(id=task_id, short=task_id[:8], link=f"/tasks/{task_id}")


def _task(view: TaskView) -> AuditTask:
    lines = [
        f"{line.label}: " + ", ".join(f"«{v}»" if line.quoted else v for v in line.values)
        for line in view.result
    ]
    if view.error:
        lines.append(view.error)
    return AuditTask(
        **_ref(view.id).model_dump(),
        kind=view.kind,
        status=view.status,
        status_words=view.status_words,
        result=[_shown(line) for line in lines],
        rolled_back_by=_ref(view.undone_by) if view.undone_by else None,
    )


def _card_objects(event: dict[str, Any]) -> list[str]:
    decision = event.get("decision") or {}
    objects = [str(line) for line in decision.get("objects") or []]
    if objects:
        return objects
    titles = [str(one.get("title")) for one in decision.get("changes") or [] if one.get("title")]
    if titles:
        return titles
    # A call with no plan (SQL, a dataset, git): what the card named, by its labels.
    return [
        f"{one.get('label')}: {one.get('value')}"
        for one in decision.get("arguments") or []
        if isinstance(one, dict)
    ]


def _people(anchor: Anchor) -> tuple[list[str], str | None]:
    """Who approved it (requester first) and who refused it."""
    entry, card, request = anchor.entry, anchor.card, anchor.request
    approved = anchor.outcome is AuditOutcome.approved
    refusing = anchor.outcome is AuditOutcome.refused
    if card is not None and entry.action == "approval_decided":
        first = [card.first_approved_by] if card.first_approved_by else []
        if approved:
            return [*first, entry.username or ""], None
        return first, entry.username if refusing else None
    if card is not None or request is None:  # one person's card, or an MCP call's own word
        who = entry.username
        return ([who] if approved and who else []), (who if refusing else None)
    people = [request.requested_by]
    if approved:
        people.append(request.decided_by or entry.username or "")
        return list(dict.fromkeys(name for name in people if name)), None
    decider = request.decided_by or entry.username
    return ([] if decider == request.requested_by else people), decider if refusing else None


def _row(
    anchor: Anchor,
    environments: EnvironmentRegistry,
    faces: dict[str, Face],
    tasks: dict[str, tuple[AuditTask, list[str]]],
    task_of: str | None,
) -> AuditRow:
    entry, card, request = anchor.entry, anchor.card, anchor.request
    title, objects, digest = UI["tool_generic"], [], None
    face, reason = Face.mcp, entry.detail.get("reason")
    if card is not None:
        event: dict[str, Any] = card.event if isinstance(card.event, dict) else {}
        title = str(event.get("title") or title)
        objects = _card_objects(event)
        digest = (event.get("decision") or {}).get("digest")
        face, reason = Face.chat, reason or card.reason
    elif request is not None:
        title, objects, digest = request.title, list(request.objects), request.digest
        face, reason = faces.get(request.id, Face.api), reason or request.reason
    elif anchor.tool:
        title = UI.get(f"audit_tool_{anchor.tool}", title)
    task, task_objects = tasks.get(task_of, (None, [])) if task_of else (None, [])
    objects = objects or task_objects  # an MCP call's own row names none: its task does
    approved_by, refused_by = _people(anchor)
    env_id = anchor.env_id
    env = environments.get(env_id) if env_id else None
    return AuditRow(
        id=entry.id,
        at=entry.at,
        requested_by=anchor.requester,
        face=face,
        tool=anchor.tool,
        title=_shown(title),
        env_id=env_id,
        env_name=env.name if env else None,
        objects=[_shown(one) for one in objects],
        approved_by=approved_by,
        refused_by=refused_by,
        outcome=anchor.outcome,
        outcome_words=UI[f"audit_outcome_{anchor.outcome.value}"],
        reason=_shown(str(reason)[:500]) if reason else None,
        digest=str(digest)[:DIGEST_SHOWN] if digest else None,
        task=task,
    )


def _task_id(anchor: Anchor, results: dict[str, dict[str, Any]]) -> str | None:
    """The task the action started: its card's or request's, else the card's call's result."""
    if anchor.request is not None:
        return anchor.request.task_id
    if anchor.card is None:
        return None
    found = anchor.card.task_id or results.get(anchor.card.id, {}).get("task_id")
    return found if isinstance(found, str) and found else None


def _call_failed(anchor: Anchor, results: dict[str, dict[str, Any]]) -> str | None:
    """Why an approved card's call wrote nothing (the plan moved, a refusal), as the chat said."""
    said = results.get(anchor.card.id) if anchor.card is not None else None
    if not said or said.get("outcome") in (None, "ok"):
        return None
    return _shown(str(said.get("message") or UI["audit_call_failed_unknown"])[:500])


async def audit_rows(
    session: AsyncSession, anchors: list[Anchor], environments: EnvironmentRegistry
) -> list[AuditRow]:
    """The anchors as rows: three queries for the page (faces, card results, tasks)."""
    cards = [anchor.card for anchor in anchors if anchor.card is not None]
    requests = [anchor.request.id for anchor in anchors if anchor.request is not None]
    faces = await request_faces(session, requests)
    results = await card_results(session, [card for card in cards if not card.task_id])
    task_of = {
        anchor.entry.id: found
        for anchor in anchors
        if (found := _task_id(anchor, results)) is not None
    }
    records = list(
        await session.scalars(select(TaskRecord).where(TaskRecord.id.in_(set(task_of.values()))))
    )
    views = await task_views(session, records, environments) if records else []
    tasks = {view.id: (_task(view), view.objects) for view in views}
    return [
        _row(anchor, environments, faces, tasks, task_of.get(anchor.entry.id)).model_copy(
            update={"call_failed": _call_failed(anchor, results)}
        )
        for anchor in anchors
    ]
