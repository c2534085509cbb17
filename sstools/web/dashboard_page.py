"""``/dashboards/{id}``: a dashboard in one environment — its health, where it lives, its deploy
history, the findings of its latest validation and its latest generated document, in words."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from sqlalchemy import String, cast, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal
from sstools.domain.dashboards import dashboard_view
from sstools.domain.placement import DashboardPlacements
from sstools.domain.timeline import TimelinePoint, kept_points, live_point, newest_first
from sstools.domain.validation import Finding, ValidationReport
from sstools.domain.validation.models import SEVERITY_ORDER
from sstools.environments import Environment
from sstools.http.deps import ServicesDep, SessionDep, SupersetId
from sstools.http.services import Services
from sstools.storage import tasks as records
from sstools.storage.models import TaskRecord
from sstools.storage.validation import latest_document, latest_validation
from sstools.superset import SupersetError, SupersetNotFound
from sstools.web import _document
from sstools.web._kit import PageEnv, PageUser, agent_link, render, short_ids
from sstools.web._task_words import DASHBOARD_KEY, WRITES_DASHBOARDS, task_views
from sstools.web.strings import UI
from sstools.web.task_pages import HISTORY_LIMIT, HistoryRow, rollback_link

router = APIRouter(include_in_schema=False)

# Tasks from before ``tasks.object_keys`` (migration 0006) name no dashboard by key: the newest
# this many of them are read and matched by what they did record (their result, their titles).
LEGACY_SCAN = 200
_OBJECT_WORDS = {"dashboard": "plan_kind_dashboard", "chart": "plan_kind_chart"}


@dataclass(frozen=True)
class FindingLine:
    """One finding as the page says it: severity, the object by kind and name, what to do."""

    severity: str  # error, warning, info: the badge's class
    severity_words: str
    object_words: str  # «график», «датасет», «дашборд»
    object_name: str
    page: str | None  # the object's page here (a dataset's)
    superset: str | None  # the object in Superset (a chart's Explore)
    message: str
    fix: str


@dataclass(frozen=True)
class TimelineRow:
    """One point of «История версий»: when, what in words, who, and the agent link that plans
    bringing the dashboard back to it here (None: nothing to restore, or the role may not)."""

    when: datetime
    kind: str  # git, snapshot, backup, live: the row's class
    kind_words: str
    about: str
    page: str | None  # the task that took the snapshot, the dashboard's page in its environment
    who: str
    restore: str | None
    restore_title: str


@dataclass(frozen=True)
class ValidationPanel:
    created_at: datetime
    counts: str
    review: str
    findings: list[FindingLine]
    task_id: str


@dataclass(frozen=True)
class DocumentPanel:
    document: _document.Document
    author: str
    created_at: datetime
    commit: str | None  # the short commit on main; None: stored, not committed
    task_id: str
    cut: str | None  # «Показано не полностью…» when the document is longer than is shown


def finding_line(finding: Finding, env: Environment) -> FindingLine:
    page = superset = None
    if finding.object_id is not None and finding.object_type == "dataset":
        page = f"/datasets/{finding.object_id}?env_id={env.id}"
    elif finding.object_id is not None and finding.object_type == "chart":
        superset = f"{env.url}/explore/?slice_id={finding.object_id}"
    return FindingLine(
        severity=finding.severity,
        severity_words=UI[f"severity_{finding.severity}"],
        object_words=UI[_OBJECT_WORDS.get(finding.object_type, "plan_kind_dataset")],
        object_name=short_ids(finding.object_name),
        page=page,
        superset=superset,
        message=short_ids(finding.message),
        fix=short_ids(finding.fix),
    )


async def validation_panel(
    session: AsyncSession, env: Environment, dashboard_id: int
) -> ValidationPanel | None:
    """The latest validation of the dashboard in ``env``, as the API's GET …/validation reads it;
    None when none has run. Errors first, then warnings, then notes."""
    row = await latest_validation(session, env.id, dashboard_id)
    if row is None:
        return None
    report = ValidationReport.of(row)
    counts = report.counts
    findings = sorted(report.findings, key=lambda one: SEVERITY_ORDER[one.severity])
    return ValidationPanel(
        created_at=row.created_at,
        counts=UI["validation_counts"].format(
            error=counts.error, warning=counts.warning, info=counts.info
        ),
        review=short_ids(row.review),
        findings=[finding_line(one, env) for one in findings],
        task_id=row.task_id,
    )


async def document_panel(
    session: AsyncSession, env: Environment, dashboard_id: int
) -> DocumentPanel | None:
    """The latest stored document of the dashboard in ``env`` as blocks of plain text (never
    its Markdown as HTML: a model wrote it); None when none was written."""
    row = await latest_document(session, env.id, dashboard_id)
    if row is None:
        return None
    author = "documentation_by_model" if row.author == "model" else "documentation_by_template"
    document = _document.parse(row.markdown)
    limit = f"{_document.MAX_CHARS:,}".replace(",", "\N{NO-BREAK SPACE}")
    return DocumentPanel(
        document=document,
        author=UI[author],
        created_at=row.created_at,
        commit=row.git_commit[:7] if row.git_commit else None,
        task_id=row.task_id,
        cut=UI["documentation_cut"].format(chars=limit) if document.cut else None,
    )


@router.get("/dashboards/{dashboard_id}")
async def dashboard_page(
    request: Request,
    dashboard_id: SupersetId,
    services: ServicesDep,
    session: SessionDep,
    user: PageUser,
    env: PageEnv,
) -> HTMLResponse:
    try:
        # One fetch of the dashboard, its export shared by the git status and the plans (or
        # none at all while nothing moved), every environment asked at once.
        view = await dashboard_view(
            services.superset,
            list(services.environments.values()),
            services.git,
            env.id,
            dashboard_id,
            services.sessions,
        )
    except SupersetNotFound as exc:
        absent = UI["dashboard_absent"].format(id=dashboard_id, env=env.name)
        raise HTTPException(404, absent) from exc
    overview, placements = view.overview, view.placements
    dashboard = overview.dashboard
    route = f"/dashboards/{dashboard_id}"

    def ask(prompt: str | None = None) -> str:
        return agent_link("dashboard", dashboard_id, dashboard.title, env.id, route, prompt)

    may_deploy = user.role.allows(Role.engineer)  # no «Развернуть…» for a role it would refuse
    actions = {
        row.env_id: {
            "deploy": ask(UI["prompt_deploy"].format(target=row.name)) if may_deploy else None,
        }
        for row in (placements.environments if placements else [])
        if row.env_id != env.id
    }
    titles = {env.id: {dashboard.title}}
    for row in placements.environments if placements else []:
        if row.present and row.title:
            titles.setdefault(row.env_id, set()).add(row.title)
    return render(
        request,
        "dashboard.html",
        user,
        services,
        env,
        dashboard=dashboard,
        health=overview.health,
        placements=placements,
        actions=actions,
        history=await _history(session, services, user, env, dashboard_id, placements, titles),
        timeline=await _timeline(session, services, user, env, placements, ask),
        validation=await validation_panel(session, env, dashboard_id),
        document=await document_panel(session, env, dashboard_id),
        ask=ask(),
        ask_validate=ask(UI["prompt_validate"]),
        ask_document=ask(UI["prompt_document"]),
    )


def names_dashboard(record: TaskRecord, uuid: str, titles: dict[str, set[str]]) -> bool:
    """Whether a task that kept no keys wrote this dashboard: its result names the UUID (a
    snapshot's dashboards, a rollback's deletions), or it wrote or read an environment where
    the dashboard has one of the titles the task kept."""
    if uuid in json.dumps(record.result or {}, ensure_ascii=False):
        return True
    kept = set(record.objects or [])
    return any(kept & titles.get(place, set()) for place in (record.env_id, record.source) if place)


async def legacy_tasks(session: AsyncSession, *, limit: int = LEGACY_SCAN) -> list[TaskRecord]:
    """The newest deploys, migrations and rollbacks that kept no object keys (before 0006)."""
    keys = cast(TaskRecord.object_keys, String)
    query = (
        select(TaskRecord)
        .where(
            TaskRecord.kind.in_(WRITES_DASHBOARDS),
            or_(TaskRecord.object_keys.is_(None), keys.in_(["null", "[]"])),
        )
        .order_by(TaskRecord.created_at.desc())
        .limit(limit)
    )
    return list((await session.scalars(query)).all())


async def _history(
    session: AsyncSession,
    services: Services,
    user: Principal,
    env: Environment,
    dashboard_id: int,
    placements: DashboardPlacements | None,
    titles: dict[str, set[str]],
) -> list[HistoryRow]:
    """The tasks that wrote this dashboard anywhere, newest first: matched by its UUID (the
    placements know it), and the older tasks without keys by what they recorded."""
    uuid = placements.uuid if placements else None
    if uuid is None:
        try:
            found = await services.superset.client(env.id).find_dashboard("id", dashboard_id)
        except SupersetError:
            return []
        uuid = found[0] if found else None
    if uuid is None:
        return []
    keyed = await records.tasks_writing(
        session, f"{DASHBOARD_KEY}{uuid}", kinds=WRITES_DASHBOARDS, limit=HISTORY_LIMIT
    )
    older = [one for one in await legacy_tasks(session) if names_dashboard(one, uuid, titles)]
    found_tasks = sorted([*keyed, *older], key=lambda one: one.created_at, reverse=True)
    views = await task_views(session, found_tasks[:HISTORY_LIMIT], services.environments)
    return [HistoryRow(view, rollback_link(view, user)) for view in views]


def _about(point: TimelinePoint, services: Services) -> tuple[str, str | None]:
    """The point in the page's words, and the page it links to."""
    env = services.environments.get(point.env_id or "")
    where = env.name if env else short_ids(point.env_id or "")
    if point.kind == "git" and point.restore and point.restore.git_commit:
        message = point.label.split(": ", 1)[-1]
        commit = point.restore.git_commit[:7]
        return UI["timeline_git"].format(message=short_ids(message), commit=commit), None
    if point.kind == "snapshot" and point.task_id:
        task = point.task_id[:8]
        return UI["timeline_snapshot"].format(env=where, task=task), f"/tasks/{point.task_id}"
    if point.kind == "backup":
        return UI["timeline_backup"].format(env=where), None
    return UI["timeline_live"].format(env=where), None


def _restore_link(
    point: TimelinePoint, user: Principal, env: Environment, ask: Callable[[str], str]
) -> tuple[str | None, str]:
    """«Вернуть к этой версии…»: a deploy from the point's commit into this environment
    (engineers), or the restore of its backup here (admins, as the restore itself)."""
    source = point.restore
    if source is None:
        return None, ""
    if source.git_commit and user.role.allows(Role.engineer):
        prompt = UI["prompt_restore_git"].format(target=env.name, commit=source.git_commit)
        return ask(prompt), UI["timeline_restore_title"].format(env=env.name)
    if source.backup_id and user.role.allows(Role.admin):
        prompt = UI["prompt_restore_backup"].format(backup=source.backup_id, target=env.name)
        return ask(prompt), UI["timeline_restore_backup_title"].format(env=env.name)
    return None, ""


async def _timeline(
    session: AsyncSession,
    services: Services,
    user: Principal,
    env: Environment,
    placements: DashboardPlacements | None,
    ask: Callable[[str], str],
) -> list[TimelineRow]:
    """The dashboard over time (sstools.domain.timeline), the live points from the placements
    the page already has: no further request to Superset."""
    if placements is None:
        return []
    points = await kept_points(
        environments=services.environments,
        git=services.git,
        session=session,
        backup_dir=services.settings.backup_dir,
        uuid=placements.uuid,
    )
    for row in placements.environments:
        here = services.environments.get(row.env_id)
        live = live_point(here, row.changed_on) if here and row.present else None
        points += [live] if live else []
    rows = []
    for point in newest_first(points):
        about, page = _about(point, services)
        if point.kind == "live" and point.env_id:
            placed = next(one for one in placements.environments if one.env_id == point.env_id)
            page = f"/dashboards/{placed.dashboard_id}?env_id={point.env_id}"
        restore, title = _restore_link(point, user, env, ask)
        rows.append(
            TimelineRow(
                when=point.when,
                kind=point.kind,
                kind_words=UI[f"timeline_kind_{point.kind}"],
                about=about,
                page=page,
                who=point.who or "—",
                restore=restore,
                restore_title=title,
            )
        )
    return rows
