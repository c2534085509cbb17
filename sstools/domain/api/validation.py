"""``/api/dashboards/{id}/validate|validation|document|documentation``: checks and documents.

Starting either is a durable task (202, the task record); its result is also stored, so the
newest run answers the GETs (404 until there is one). Any signed-in user may run them: they
read Superset, and documentation writes only ``docs/<uuid>.md`` to the git repository.
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, status

from sstools.auth.deps import CurrentUser
from sstools.deps import EnvironmentDep, ServicesDep, SessionDep, SupersetDep, SupersetId
from sstools.domain.documentation import DashboardDocumentation
from sstools.domain.documentation import texts as doc_texts
from sstools.domain.documentation.workflow import document_dashboard
from sstools.domain.validation import Finding, ValidationReport, counts_of, last_run_text
from sstools.domain.validation import texts as validation_texts
from sstools.domain.validation.workflow import validate_dashboard
from sstools.storage.validation import latest_document, latest_validation
from sstools.superset import SupersetClient, SupersetNotFound
from sstools.tasks import Task, TaskKind

router = APIRouter(prefix="/api/dashboards", tags=["validation"])


async def _dashboard(superset: SupersetClient, dashboard_id: int) -> tuple[str, str]:
    """The dashboard's UUID and title, or a 404 naming it."""
    found = await superset.find_dashboard("id", dashboard_id)
    if found is None:
        raise SupersetNotFound(superset.env.id, f"dashboard {dashboard_id} not found")
    uuid, summary = found
    return uuid, summary.title


@router.post("/{dashboard_id}/validate", status_code=status.HTTP_202_ACCEPTED)
async def validate(
    dashboard_id: SupersetId,
    env: EnvironmentDep,
    superset: SupersetDep,
    services: ServicesDep,
    user: CurrentUser,
) -> Task:
    """Validate the dashboard in ``env_id``: structure, every chart's query, the model's review
    (when one is configured); a task whose result is the report."""
    uuid, title = await _dashboard(superset, dashboard_id)
    return await services.tasks.start(
        TaskKind.validation,
        env_id=env.id,
        source=env.id,
        objects=[title],
        object_keys=[f"validation:{uuid}"],
        started_by=user.username,
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
        message = validation_texts.NOT_FOUND.format(dashboard=dashboard_id, env=env.id)
        raise HTTPException(status.HTTP_404_NOT_FOUND, message)
    findings = [Finding.model_validate(one) for one in row.findings]
    counts = counts_of(findings)
    return ValidationReport(
        env_id=row.env_id,
        dashboard_id=row.dashboard_id,
        dashboard_uuid=row.dashboard_uuid,
        title=row.title,
        task_id=row.task_id,
        created_at=row.created_at,
        review=row.review,
        counts=counts,
        findings=findings,
        summary=last_run_text(row.created_at, counts.problems, counts.error),
    )


@router.post("/{dashboard_id}/document", status_code=status.HTTP_202_ACCEPTED)
async def document(
    dashboard_id: SupersetId,
    env: EnvironmentDep,
    superset: SupersetDep,
    services: ServicesDep,
    user: CurrentUser,
) -> Task:
    """Write the dashboard's documentation (model, or template without one) and commit it as
    ``docs/<uuid>.md``; a task."""
    uuid, title = await _dashboard(superset, dashboard_id)
    return await services.tasks.start(
        TaskKind.documentation,
        env_id=env.id,
        source=env.id,
        objects=[title],
        object_keys=[f"documentation:{uuid}"],
        started_by=user.username,
        workflow=document_dashboard,
        args=(env.id, dashboard_id, user.username),
    )


@router.get("/{dashboard_id}/documentation")
async def documentation(
    dashboard_id: SupersetId, env: EnvironmentDep, session: SessionDep, user: CurrentUser
) -> DashboardDocumentation:
    """The newest document of the dashboard in ``env_id``."""
    row = await latest_document(session, env.id, dashboard_id)
    if row is None:
        message = doc_texts.NOT_FOUND.format(dashboard=dashboard_id, env=env.id)
        raise HTTPException(status.HTTP_404_NOT_FOUND, message)
    return DashboardDocumentation.model_validate(row, from_attributes=True)
