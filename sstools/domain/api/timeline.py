"""``/api/dashboards/{id}/timeline``: a dashboard over time, every point it can be brought back to.

Read only: restoring a point is a deploy plan from its commit or a restore plan of its backup,
then the usual card and digest (docs/deploy.md, «Restore to any point»).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException

from sstools.domain.timeline import DashboardMissing, Timeline, dashboard_timeline
from sstools.http.auth import CurrentUser
from sstools.http.deps import EnvIdQuery, ServicesDep, SessionDep, SupersetId
from sstools.http.errors import field_error
from sstools.texts import timeline as texts

router = APIRouter(prefix="/api/dashboards", tags=["dashboards"])


@router.get("/{dashboard_id}/timeline")
async def get_dashboard_timeline(
    dashboard_id: SupersetId,
    env_id: Annotated[str, EnvIdQuery],
    services: ServicesDep,
    session: SessionDep,
    user: CurrentUser,
) -> Timeline:
    """The dashboard ``dashboard_id`` of ``env_id`` over time, newest first: its commits on
    main, the snapshots deploys took before overwriting it, the backups holding it and its
    ``changed_on`` in each environment; each point with what restoring it plans from."""
    env = services.environments.get(env_id)
    if env is None:
        known = ", ".join(services.environments)
        raise field_error(
            "env_id", texts.UNKNOWN_ENV.format(env=env_id, known=known), where="query"
        )
    try:
        return await dashboard_timeline(
            superset=services.superset,
            environments=services.environments,
            git=services.git,
            session=session,
            backup_dir=services.settings.backup_dir,
            env=env,
            dashboard_id=dashboard_id,
        )
    except DashboardMissing as exc:
        raise HTTPException(404, str(exc)) from exc
