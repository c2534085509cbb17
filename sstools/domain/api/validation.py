"""``/api/dashboards/{id}/validate|validation|document|documentation``: checks and documents.

Starting either is a durable task (202, the task record); its result is also stored, so the
newest run answers the GETs (404 until there is one). Any signed-in user may run them: they
read Superset and store their result. Committing the document to git (``commit=true``) is a
write, so it needs an engineer: an analyst's document is stored, never committed. Each is
limited per dashboard (``SSTOOLS_VALIDATION_LIMIT_PER_DASHBOARD``, ``…_DOCUMENTATION_…``): a
start over the limit is a 429 with ``Retry-After``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, status

from sstools.auth.roles import Role
from sstools.auth.tokens import Caller
from sstools.domain.documentation import DashboardDocumentation
from sstools.domain.documentation.workflow import document_dashboard
from sstools.domain.validation import ValidationReport
from sstools.domain.validation.workflow import validate_dashboard
from sstools.http.auth import CurrentUser, RoleRequired
from sstools.http.deps import EnvironmentDep, ServicesDep, SessionDep, SupersetDep, SupersetId
from sstools.http.services import Services
from sstools.http.task_throttle import StartThrottle, TooOften, start_throttle
from sstools.russian import plural_form
from sstools.storage import audit
from sstools.storage.validation import latest_document, latest_validation
from sstools.superset import SupersetClient, SupersetNotFound
from sstools.tasks import Task, TaskKind, TaskLimited
from sstools.texts import dashboards as dashboard_texts
from sstools.texts import documentation as doc_texts
from sstools.texts import validation as validation_texts

router = APIRouter(prefix="/api/dashboards", tags=["validation"])

StartThrottleDep = Annotated[StartThrottle, Depends(start_throttle)]
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


async def _start(
    kind: TaskKind,
    env_id: str,
    dashboard_id: int,
    superset: SupersetClient,
    services: Services,
    throttle: StartThrottle,
    user: Caller,
    *,
    too_often: str,
    workflow: Callable[..., Any],
    args: tuple[Any, ...],
) -> Task:
    """The dashboard's validation or documentation as a task, unless started too often."""
    uuid, title = await _dashboard(superset, dashboard_id)
    if refused := await throttle.refused(kind, env_id, uuid):
        raise _too_often(too_often, title, env_id, refused)
    task = await services.tasks.start(
        kind,
        env_id=env_id,
        source=env_id,
        objects=[title],
        object_keys=[f"{kind.value}:{uuid}"],
        started_by=user.username,
        workflow=workflow,
        args=args,
    )
    await throttle.count(kind, env_id, uuid)
    return task


def _none_yet(template: str, dashboard_id: int, env_id: str) -> HTTPException:
    message = template.format(dashboard=dashboard_id, env=env_id)
    return HTTPException(status.HTTP_404_NOT_FOUND, message)


@router.post("/{dashboard_id}/validate", status_code=status.HTTP_202_ACCEPTED, responses=_TOO_OFTEN)
async def validate(
    dashboard_id: SupersetId,
    env: EnvironmentDep,
    superset: SupersetDep,
    services: ServicesDep,
    throttle: StartThrottleDep,
    user: CurrentUser,
) -> Task:
    """Validate the dashboard in ``env_id``: structure, every chart's query, the model's review
    (when one is configured); a task whose result is the report."""
    return await _start(
        TaskKind.validation,
        env.id,
        dashboard_id,
        superset,
        services,
        throttle,
        user,
        too_often=validation_texts.TOO_OFTEN,
        workflow=validate_dashboard,
        args=(env.id, dashboard_id),
    )


@router.get("/{dashboard_id}/validation")
async def last_validation(
    dashboard_id: SupersetId, env: EnvironmentDep, session: SessionDep, user: CurrentUser
) -> ValidationReport:
    """The newest finished validation of the dashboard in ``env_id``."""
    row = await latest_validation(session, env.id, dashboard_id)
    if row is None:
        raise _none_yet(validation_texts.NOT_FOUND, dashboard_id, env.id)
    return ValidationReport.of(row)


CommitFlag = Annotated[
    bool,
    Query(
        description="Also commit the document to main as docs/<uuid>.md (engineer or admin); "
        "without it the document is only stored"
    ),
]


@router.post("/{dashboard_id}/document", status_code=status.HTTP_202_ACCEPTED, responses=_TOO_OFTEN)
async def document(
    dashboard_id: SupersetId,
    env: EnvironmentDep,
    superset: SupersetDep,
    services: ServicesDep,
    throttle: StartThrottleDep,
    session: SessionDep,
    user: CurrentUser,
    commit: CommitFlag = False,
) -> Task:
    """Write the dashboard's documentation (model, or template without one) and store it; with
    ``commit=true`` (an engineer's) also commit it as ``docs/<uuid>.md``; a task."""
    if commit and not user.role.allows(Role.engineer):
        await audit.record(
            session,
            action="documentation_commit",
            outcome="refused",
            username=user.username,
            env_id=env.id,
            dashboard_id=dashboard_id,
        )
        raise RoleRequired(Role.engineer, user.role, doc_texts.COMMIT_OPERATION)
    return await _start(
        TaskKind.documentation,
        env.id,
        dashboard_id,
        superset,
        services,
        throttle,
        user,
        too_often=doc_texts.TOO_OFTEN,
        workflow=document_dashboard,
        args=(env.id, dashboard_id, user.username, commit),
    )


@router.get("/{dashboard_id}/documentation")
async def documentation(
    dashboard_id: SupersetId, env: EnvironmentDep, session: SessionDep, user: CurrentUser
) -> DashboardDocumentation:
    """The newest document of the dashboard in ``env_id``."""
    row = await latest_document(session, env.id, dashboard_id)
    if row is None:
        raise _none_yet(doc_texts.NOT_FOUND, dashboard_id, env.id)
    return DashboardDocumentation.model_validate(row, from_attributes=True)
