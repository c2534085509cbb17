"""The one way an approved plan is applied: deploy, migration, rollback and restore.

A route makes its plan (its own kind of plan, made again now) and hands it here as a
:class:`PlannedWrite`; :func:`apply_approved` then checks, in this order, and maps each refusal
the same way for every route:

1. the plan can apply, else 422 naming the route's field, in words (``InvalidPlanRequest``);
2. no unfinished task writes the same objects there, else 409 naming it (``TaskConflict``);
3. its digest is the one the person approved, else 409 with the current digest
   (``StalePlan``), audited;
4. the stage's approvals (:func:`~sstools.domain.writes.held.second_person`): held for a second
   person → the request (202), nothing written;
5. the task starts (202), audited as approved, naming the second person where there was one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.roles import Role
from sstools.auth.tokens import Caller, Principal
from sstools.domain.deploy import InvalidPlanRequest, StalePlan
from sstools.domain.writes.held import Ask, Granted, Held, WriteRequestView, second_person
from sstools.http.services import Services
from sstools.storage import audit
from sstools.storage import write_requests as held_requests
from sstools.tasks import Task, TaskConflict, TaskKind


@dataclass(frozen=True)
class PlannedWrite:
    """A route's plan, made now, as the apply needs it."""

    kind: TaskKind
    env_id: str
    digest: str
    cannot_apply: str | None  # why not, in words; None when it applies
    body_field: str  # the body field a plan that cannot apply names
    objects: list[str]  # names, for the task and a held request
    object_keys: list[str]  # what the task claims
    stale: str  # words when the approved digest is no longer the plan's
    source: str | None  # where what the task writes comes from, as its record names it
    workflow: Callable[..., Any]  # the task's @task_workflow, run with ``args``
    args: tuple[Any, ...]
    approver_role: Role = Role.engineer  # who may be the second person
    audit: dict[str, Any] = field(default_factory=dict)  # what the route's audit rows add


async def audit_write(
    session: AsyncSession,
    kind: TaskKind,
    verdict: str,
    outcome: str,
    *,
    by: Principal,
    env_id: str,
    **detail: Any,
) -> None:
    """The audit row of a planned write, ``<kind>_<verdict>``: by whom, where it writes, with
    ``detail`` (a route's own refusals too, made before its plan is)."""
    await audit.record(
        session,
        action=f"{kind.value}_{verdict}",
        outcome=outcome,
        username=by.username,
        env_id=env_id,
        **detail,
    )


async def _audit(
    session: AsyncSession,
    planned: PlannedWrite,
    caller: Caller,
    verdict: str,
    outcome: str,
    **detail: Any,
) -> None:
    """The audit row of ``planned``, with ``detail`` and what the route's rows add."""
    await audit_write(
        session,
        planned.kind,
        verdict,
        outcome,
        by=caller,
        env_id=planned.env_id,
        **detail,
        **planned.audit,
    )


async def apply_approved(
    planned: PlannedWrite,
    *,
    approved_digest: str,
    body: dict[str, Any],
    services: Services,
    session: AsyncSession,
    caller: Caller,
    granted: Granted | None = None,
) -> Task | WriteRequestView:
    """Start the write ``planned`` if everything above holds; a held request otherwise."""
    if planned.cannot_apply is not None:
        raise InvalidPlanRequest(planned.body_field, planned.cannot_apply)
    running = await services.tasks.running_on(planned.env_id, planned.object_keys)
    if running is not None:
        raise TaskConflict(running)
    if planned.digest != approved_digest:
        await _audit(
            session,
            planned,
            caller,
            "refused",
            "stale_plan",
            approved_digest=approved_digest,
            current_digest=planned.digest,
        )
        raise StalePlan(planned.stale, planned.digest)
    ask = Ask(
        kind=planned.kind.value,
        env_id=planned.env_id,
        digest=planned.digest,
        matches=planned.digest,
        objects=planned.objects,
        body=body,
        approver_role=planned.approver_role,
    )
    cleared = await second_person(session, services, caller, ask, granted)
    if isinstance(cleared, Held):
        return cleared.request
    await _audit(
        session,
        planned,
        caller,
        "approved",
        "ok",
        digest=planned.digest,
        approved_by=cleared.approved_by,
    )
    task = await services.tasks.start(
        planned.kind,
        env_id=planned.env_id,
        source=planned.source,
        objects=planned.objects,
        object_keys=planned.object_keys,
        started_by=caller.username,
        approved_by=cleared.approved_by,
        workflow=planned.workflow,
        args=planned.args,
    )
    if cleared.card_id is not None:
        await held_requests.card_started(session, cleared.card_id, task.id)
    return task
