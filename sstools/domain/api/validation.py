"""``/api/dashboards/{id}/validate|validation|document|documentation``: checks and documents.

Starting either is a durable task (202, the task record); its result is also stored, so the
newest run answers the GETs (404 until there is one). Any signed-in user may run them: they
read Superset and store their result. Committing the document to git (``commit=true``) is a
write, so it needs an engineer: an analyst's document is stored, never committed. Each is
limited per dashboard (``SSTOOLS_VALIDATION_LIMIT_PER_DASHBOARD``, ``…_DOCUMENTATION_…``): a
start over the limit is a 429 with ``Retry-After``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, HTTPException, Query, status
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.roles import Role
from sstools.auth.tokens import Caller
from sstools.domain.documentation import DashboardDocumentation
from sstools.domain.documentation.workflow import document_dashboard
from sstools.domain.validation import ValidationReport
from sstools.domain.validation.workflow import validate_dashboard
from sstools.http.audit_trail import AuditTrail
from sstools.http.auth import CurrentUser, RoleRequired
from sstools.http.deps import EnvironmentDep, ServicesDep, SessionDep, SupersetDep, SupersetId
from sstools.http.services import Services
from sstools.http.task_throttle import StartThrottle, TooOften, start_throttle
from sstools.russian import plural_form
from sstools.storage.validation import latest_document, latest_validation
from sstools.superset import SupersetClient, SupersetNotFound
from sstools.tasks import Task, TaskKind, TaskLimited
from sstools.texts import dashboards as dashboard_texts
from sstools.texts import documentation as doc_texts
from sstools.texts import validation as validation_texts

router = APIRouter(prefix="/api/dashboards", tags=["validation"])

StartThrottleDep = Annotated[StartThrottle, Depends(start_throttle)]
_Row = TypeVar("_Row")
_TOO_OFTEN: dict[int | str, dict[str, Any]] = {
    429: {"description": "Started too often for this dashboard; see Retry-After"}
}


async def _dashboard(superset: SupersetClient, dashboard_id: int) -> tuple[str, str]:
    """The dashboard's UUID and title, or a 404 naming it."""
    found = await superset.find_dashboard("id", dashboard_id)
    if found is None:
        raise SupersetNotFound(
            superset.env.id, dashboard_texts.NOT_FOUND.format(dashboard=dashboard_id)
        )
    uuid, summary = found
    return uuid, summary.title


def _too_often(template: str, title: str, env_id: str, refused: TooOften) -> TaskLimited:
    message = template.format(
        title=title,
        env=env_id,
        amount=refused.amount,
        times=plural_form(refused.amount, *validation_texts.TIMES),
        window=validation_texts.window_text(refused.window_s),
        wait=refused.retry_after_s,
    )
    return TaskLimited(message, refused.retry_after_s)


@dataclass(frozen=True)
class _Asked:
    """The dashboard a route is about, in which environment, and who asks."""

    dashboard_id: int
    env_id: str
    user: Caller

    async def newest(
        self,
        find: Callable[[AsyncSession, str, int], Awaitable[_Row | None]],
        none_yet: str,
        session: AsyncSession,
    ) -> _Row:
        """The newest stored result ``find`` reads, or a 404 in ``none_yet``'s words."""
        row = await find(session, self.env_id, self.dashboard_id)
        if row is None:
            message = none_yet.format(dashboard=self.dashboard_id, env=self.env_id)
            raise HTTPException(status.HTTP_404_NOT_FOUND, message)
        return row


def _asked(dashboard_id: SupersetId, env: EnvironmentDep, user: CurrentUser) -> _Asked:
    return _Asked(dashboard_id, env.id, user)


AskedDep = Annotated[_Asked, Depends(_asked)]


@dataclass(frozen=True)
class _Starting:
    """What starting the dashboard's validation or documentation as a task needs."""

    asked: _Asked
    superset: SupersetClient
    services: Services
    throttle: StartThrottle

    async def task(
        self, kind: TaskKind, too_often: str, workflow: Callable[..., Any], *more: object
    ) -> Task:
        """The task of ``workflow`` (its args: the environment, the dashboard, ``more``), unless
        started too often (``too_often`` says so)."""
        env_id, dashboard_id = self.asked.env_id, self.asked.dashboard_id
        uuid, title = await _dashboard(self.superset, dashboard_id)
        if refused := await self.throttle.refused(kind, env_id, uuid):
            raise _too_often(too_often, title, env_id, refused)
        task = await self.services.tasks.start(
            kind,
            env_id=env_id,
            source=env_id,
            objects=[title],
            object_keys=[f"{kind.value}:{uuid}"],
            started_by=self.asked.user.username,
            workflow=workflow,
            args=(env_id, dashboard_id, *more),
        )
        await self.throttle.count(kind, env_id, uuid)
        return task


def _starting(
    asked: AskedDep, superset: SupersetDep, services: ServicesDep, throttle: StartThrottleDep
) -> _Starting:
    return _Starting(asked, superset, services, throttle)


StartingDep = Annotated[_Starting, Depends(_starting)]


@router.post("/{dashboard_id}/validate", status_code=status.HTTP_202_ACCEPTED, responses=_TOO_OFTEN)
async def validate(starting: StartingDep) -> Task:
    """Validate the dashboard in ``env_id``: structure, every chart's query, the model's review
    (when one is configured); a task whose result is the report."""
    return await starting.task(TaskKind.validation, validation_texts.TOO_OFTEN, validate_dashboard)


@router.get("/{dashboard_id}/validation")
async def last_validation(asked: AskedDep, session: SessionDep) -> ValidationReport:
    """The newest finished validation of the dashboard in ``env_id``."""
    return ValidationReport.of(
        await asked.newest(latest_validation, validation_texts.NOT_FOUND, session)
    )


CommitFlag = Annotated[
    bool,
    Query(
        description="Also commit the document to main as docs/<uuid>.md (engineer or admin); "
        "without it the document is only stored"
    ),
]


@router.post("/{dashboard_id}/document", status_code=status.HTTP_202_ACCEPTED, responses=_TOO_OFTEN)
async def document(starting: StartingDep, session: SessionDep, commit: CommitFlag = False) -> Task:
    """Write the dashboard's documentation (model, or template without one) and store it; with
    ``commit=true`` (an engineer's) also commit it as ``docs/<uuid>.md``; a task."""
    asked = starting.asked
    user = asked.user
    if commit and not user.role.allows(Role.engineer):
        await AuditTrail(session, user).record(
            "documentation_commit",
            "refused",
            env_id=asked.env_id,
            dashboard_id=asked.dashboard_id,
        )
        raise RoleRequired(Role.engineer, user.role, doc_texts.COMMIT_OPERATION)
    return await starting.task(
        TaskKind.documentation, doc_texts.TOO_OFTEN, document_dashboard, user.username, commit
    )


@router.get("/{dashboard_id}/documentation")
async def documentation(asked: AskedDep, session: SessionDep) -> DashboardDocumentation:
    """The newest document of the dashboard in ``env_id``."""
    row = await asked.newest(latest_document, doc_texts.NOT_FOUND, session)
    return DashboardDocumentation.model_validate(row, from_attributes=True)
