"""``/audit``, its JSON twin ``GET /api/audit`` and ``GET /api/audit.csv``: the agent's writes as
they were asked, approved and run. Admins see everyone's, engineers their own (asked or decided
by them), analysts none (403)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from sstools.auth.roles import Role
from sstools.http.deps import ServicesDep, SessionDep
from sstools.storage.audit_query import WRITE_TOOLS, AuditOutcome, all_anchors, anchors_page
from sstools.web._kit import environment, render
from sstools.web.audit.csv_export import EXPORT_LIMIT, audit_csv
from sstools.web.audit.filters import (
    AuditPageReader,
    AuditQueryDep,
    AuditReader,
    encode_cursor,
)
from sstools.web.audit.rows import AuditPage, audit_rows

page_router = APIRouter(include_in_schema=False)
api_router = APIRouter(prefix="/api", tags=["audit"])


@api_router.get(
    "/audit",
    responses={
        403: {"description": "an analyst: the audit is for engineers and admins"},
        422: {"description": "a filter that is not one: its field named, in words"},
    },
)
async def audit_api(
    user: AuditReader, asked: AuditQueryDep, services: ServicesDep, session: SessionDep
) -> AuditPage:
    """The agent's decided writes, newest first, one page (``size`` ≤ 100; ``after`` from the
    previous page's ``next``), filtered by ``person`` (who asked), ``env_id``, ``tool``,
    ``outcome`` (approved | refused | failed) and UTC days ``from``/``to`` (inclusive)."""
    anchors, cursor = await anchors_page(
        session, asked.filters(user), size=asked.size, after=asked.after
    )
    rows = await audit_rows(session, anchors, services.environments)
    return AuditPage(rows=rows, next=encode_cursor(cursor) if cursor else None)


@api_router.get(
    "/audit.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}}, 403: {}, 422: {}},
)
async def audit_export(
    user: AuditReader, asked: AuditQueryDep, services: ServicesDep, session: SessionDep
) -> Response:
    """The same rows as CSV (the same filters and scoping, every page, at most 10 000 rows)."""
    anchors = await all_anchors(session, asked.filters(user), limit=EXPORT_LIMIT)
    rows = await audit_rows(session, anchors, services.environments)
    return Response(
        "\ufeff" + audit_csv(rows),  # the BOM: a spreadsheet reads the Cyrillic as UTF-8
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="audit.csv"'},
    )


@page_router.get("/audit")
async def audit_page(
    request: Request,
    user: AuditPageReader,
    asked: AuditQueryDep,
    services: ServicesDep,
    session: SessionDep,
) -> HTMLResponse:
    anchors, cursor = await anchors_page(
        session, asked.filters(user), size=asked.size, after=asked.after
    )
    rows = await audit_rows(session, anchors, services.environments)
    return render(
        request,
        "audit.html",
        user,
        services,
        environment(services, asked.env_id or None),
        rows=rows,
        asked=asked,
        own=not user.role.allows(Role.admin),
        tools=WRITE_TOOLS,
        outcomes=[outcome.value for outcome in AuditOutcome],
        next_link=f"/audit?{asked.link(after=encode_cursor(cursor))}" if cursor else None,
        first_link=f"/audit?{asked.link()}" if asked.after else None,
        csv_link=f"/api/audit.csv?{asked.link()}",
    )
