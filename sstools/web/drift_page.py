"""``/drift``: «Расхождения» — per environment, the dashboards that drifted from git ``main`` or
from their upstream stage, in words, with links to their pages and to the compare page.

It shows the latest report (the scheduled watch's, or one made earlier) with its time at once and
never waits for a check: with no report yet it starts the first one, and environments written
since their check are checked again in the background; while a check runs, static/drift.js
follows ``GET /api/drift/progress`` and reloads when it ends. «Проверить сейчас» asks ``POST
/api/drift/check`` (with the CSRF header: a link could be followed from another site). Its JSON
twin is ``GET /api/drift``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from sstools.domain.drift import DashboardDrift, DriftState, EnvironmentDrift
from sstools.domain.drift.on_request import DriftOnRequestDep
from sstools.http.deps import ServicesDep, SessionDep
from sstools.web._kit import PageUser, agent_link, environment, render
from sstools.web.strings import UI

router = APIRouter(include_in_schema=False)

DRIFTED = [DriftState.edited_here, DriftState.behind_source, DriftState.missing]


@dataclass(frozen=True)
class DashboardLine:
    title: str
    state: str  # the enum's value, for the badge's class
    words: str
    page: str | None  # our dashboard page, here (or upstream for a missing one)
    compare: str | None  # upstream → here, where both have it
    changed_on: datetime | None
    source_changed_on: datetime | None
    git_changed_on: datetime | None


@dataclass(frozen=True)
class EnvironmentBlock:
    drift: EnvironmentDrift
    source_name: str | None
    counts: list[tuple[str, str, int]]  # (state, words, count) of the drifted states
    lines: list[DashboardLine]


def _line(env: EnvironmentDrift, row: DashboardDrift) -> DashboardLine:
    page, compare = None, None
    if row.dashboard_id is not None:
        page = f"/dashboards/{row.dashboard_id}?env_id={env.env_id}"
    elif row.source_dashboard_id is not None and env.source_env_id:
        page = f"/dashboards/{row.source_dashboard_id}?env_id={env.source_env_id}"
    if row.dashboard_id is not None and row.source_dashboard_id is not None and env.source_env_id:
        compare = (
            f"/dashboards/{row.source_dashboard_id}/compare"
            f"?env_id={env.source_env_id}&target={env.env_id}"
        )
    return DashboardLine(
        title=row.title,
        state=row.state.value,
        words=UI[f"drift_state_{row.state.value}"],
        page=page,
        compare=compare,
        changed_on=row.changed_on,
        source_changed_on=row.source_changed_on,
        git_changed_on=row.git_changed_on,
    )


def block(env: EnvironmentDrift, names: dict[str, str]) -> EnvironmentBlock:
    counts = [
        (state.value, UI[f"drift_count_{state.value}"], env.counts[state]) for state in DRIFTED
    ]
    return EnvironmentBlock(
        drift=env,
        source_name=names.get(env.source_env_id or ""),
        counts=counts,
        lines=[_line(env, row) for row in env.drifted],
    )


@router.get("/drift")
async def drift_page(
    request: Request,
    services: ServicesDep,
    session: SessionDep,
    on_request: DriftOnRequestDep,
    user: PageUser,
    env_id: str | None = None,
) -> HTMLResponse:
    env = environment(services, env_id)  # an unknown one is the 404 page
    known = await on_request.latest_or_start(services, session)
    report = None if known is None else known.only(env_id)
    names = {one.id: one.name for one in services.environments.values()}
    progress = on_request.progress()
    refreshing = progress.env_ids if progress.running else None
    return render(
        request,
        "drift.html",
        user,
        services,
        env,
        report=report,
        progress=progress,
        refreshing=", ".join(names[one] for one in refreshing or [] if one in names),
        blocks=[block(one, names) for one in report.environments] if report else [],
        one_env=env_id is not None,
        ask=agent_link(None, None, None, env.id, "/drift"),
    )
