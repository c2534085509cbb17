"""The FastAPI application: routers, lifespan, and the one place errors become HTTP responses."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from langchain_core.language_models import BaseChatModel
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.routing import Route

from sstools import __version__, git_store, superset
from sstools.agent.card.edits import EditRefused
from sstools.agent.routes import ROUTERS as AGENT_ROUTERS
from sstools.agent.run.wiring import build_agent
from sstools.config import Settings
from sstools.domain.api import router as domain_router
from sstools.domain.backups.errors import ArchiveCorrupt, BackupError, BackupNotFound
from sstools.domain.datasets import DatabaseSilent, DatasetExists, DatasetInvalid, DatasetRefused
from sstools.domain.deploy import errors as deploy
from sstools.domain.deploy.rollback import SnapshotUnusable
from sstools.domain.drift.on_request import DriftCheckLimited
from sstools.http import errors
from sstools.http.auth import RoleRequired
from sstools.http.auth_routes import router as auth_router
from sstools.http.errors import Answer, field_refusal, retry_after, role_refusal
from sstools.http.services import Services
from sstools.http.task_routes import router as tasks_router
from sstools.http.token_routes import router as token_router
from sstools.logs import configure_logging
from sstools.mcp_face.endpoint import McpEndpoint
from sstools.tasks import (
    TaskCancelForbidden,
    TaskConflict,
    TaskFinished,
    TaskLimited,
    TaskNotFound,
    TaskReferenceAmbiguous,
)
from sstools.texts import http as texts
from sstools.web.api_docs import SWAGGER_UI_DIR
from sstools.web.api_docs import router as api_docs_router
from sstools.web.approvals_page import router as approvals_page_router
from sstools.web.audit import api_router as audit_api_router
from sstools.web.audit import page_router as audit_page_router
from sstools.web.error_pages import HumanErrorPages, page_answer
from sstools.web.metrics import router as metrics_router
from sstools.web.pages import STATIC_DIR, LoginRequired, login_redirect
from sstools.web.pages import router as pages_router
from sstools.web.request_body import RequestBodyGuard
from sstools.web.security import NO_STORE, SECURITY_HEADERS, SecurityHeaders
from sstools.web.superset_entry import router as superset_entry_router


def _stale_plan(exc: deploy.StalePlan) -> dict[str, object]:
    """The digest the plan has now: the person looks again and approves that one."""
    return {"detail": {"message": exc.message, "current_digest": exc.current_digest}}


def _task_conflict(exc: TaskConflict) -> dict[str, object]:
    """Names the task that holds the object."""
    return {"detail": str(exc), "running_task": exc.running.model_dump(mode="json")}


# The one table from our errors to HTTP: an error's nearest class here answers for it. The
# errors carry data and words; the status and the shape of the body are decided here only.
ERROR_ANSWERS: dict[type[Exception], Answer] = {
    # Superset's refusals, as the status our own API answers with.
    superset.SupersetError: Answer(502, errors.superset_refusal(texts.SUPERSET_SAYS)),
    superset.SupersetNotFound: Answer(404, errors.superset_refusal(texts.SUPERSET_SAYS)),
    superset.SupersetBadRequest: Answer(422, errors.superset_bad_request),
    superset.ReleaseTooOld: Answer(409, errors.superset_refusal(texts.SUPERSET_SAYS)),
    superset.SupersetUnavailable: Answer(503, errors.superset_refusal(texts.SUPERSET_UNAVAILABLE)),
    superset.SupersetAuthError: Answer(
        502, errors.superset_refusal(texts.SUPERSET_REFUSED_ACCOUNT)
    ),
    superset.SupersetForbidden: Answer(
        502, errors.superset_refusal(texts.SUPERSET_REFUSED_ACCOUNT)
    ),
    # Roles: the same body for every refusal, so the agent can name the role that would do.
    RoleRequired: Answer(403, role_refusal),
    TaskCancelForbidden: Answer(403, role_refusal),
    # Tasks.
    TaskNotFound: Answer(404),
    TaskReferenceAmbiguous: Answer(409),
    TaskFinished: Answer(409),
    TaskConflict: Answer(409, _task_conflict),
    TaskLimited: Answer(429, headers=retry_after),
    # Checking the fleet's drift on request.
    DriftCheckLimited: Answer(429, headers=retry_after),
    # The repository of exports.
    git_store.GitStoreError: Answer(500),
    git_store.UnknownBranch: Answer(404),
    git_store.BranchExists: Answer(409),
    git_store.ConcurrentUpdate: Answer(409),
    git_store.ReservedBranch: Answer(403),
    git_store.UnknownCommit: Answer(404),
    git_store.CorruptCommit: Answer(409),
    git_store.ExportError: Answer(502),
    # Deploy plans, applies and rollbacks.
    deploy.DeployError: Answer(500),
    deploy.UnknownDashboard: Answer(404),
    deploy.UnknownEnvironment: Answer(404),
    deploy.InvalidPlanRequest: Answer(422, field_refusal),
    SnapshotUnusable: Answer(409),
    deploy.StalePlan: Answer(409, _stale_plan),
    deploy.VersionSkew: Answer(409),
    # Backups and restores.
    BackupError: Answer(500),
    BackupNotFound: Answer(404),
    ArchiveCorrupt: Answer(422),
    # Creating datasets.
    DatasetRefused: Answer(422),
    DatasetInvalid: Answer(422, field_refusal),
    EditRefused: Answer(422, field_refusal),
    DatasetExists: Answer(409),
    DatabaseSilent: Answer(503),
}


def create_app(
    settings: Settings,
    *,
    superset_transport: httpx.AsyncBaseTransport | None = None,
    chat_model: BaseChatModel | None = None,
) -> FastAPI:
    """Build the app; a bad environments file raises :class:`sstools.environments.ConfigError`."""
    services = Services.start(settings, superset_transport=superset_transport)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Closed even when the body raises: a test failing inside the app must not leave its
        # task engine, schedules and database connections running.
        try:
            await services.tasks.recover()  # resumes interrupted tasks or ends them `failed`
            await agent.start()
            async with mcp.running():
                yield
        finally:
            try:
                await agent.aclose()
                await executor.aclose()
            finally:
                await services.aclose()

    # Swagger UI and the schema are served by api_docs, behind the sign-in; ReDoc needs inline
    # styles: off.
    app = FastAPI(
        title="sstools",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.services = services
    executor, agent = build_agent(app, services, chat_model=chat_model)
    app.state.agent = agent
    app.state.tool_executor = executor  # this app's API as the tools ask it, for the routes too
    app.state.agent_offline = agent.offline  # the /agent page says so once, not per answer
    mcp = McpEndpoint(services, executor)  # /mcp: the same tools for any MCP host
    errors.install(app, ERROR_ANSWERS)
    app.add_exception_handler(PoolTimeout, errors.database_busy)
    app.add_exception_handler(RequestValidationError, errors.invalid_request)
    # The last resort bypasses every middleware: it sets their headers itself, and answers a
    # page navigation with the web's error page (HumanErrorPages never sees it).
    app.add_exception_handler(
        Exception, errors.internal_error(SECURITY_HEADERS | NO_STORE, as_page=page_answer)
    )
    app.include_router(auth_router)
    app.include_router(token_router)  # a person's own access tokens
    app.include_router(domain_router)
    app.include_router(tasks_router)
    for router in AGENT_ROUTERS:  # /api/agent, a person's answer to a card, /api/approvals
        app.include_router(router)
    app.include_router(pages_router)
    app.include_router(approvals_page_router)  # /approvals, /approvals/<id>
    app.include_router(superset_entry_router)  # /agent/from-superset: the bookmarklet's landing
    app.include_router(audit_api_router)  # /api/audit, /api/audit.csv
    app.include_router(audit_page_router)  # /audit
    app.include_router(api_docs_router)
    app.include_router(metrics_router)
    app.router.routes.append(Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]))
    app.add_exception_handler(LoginRequired, login_redirect)
    app.mount("/static/swagger-ui", StaticFiles(directory=SWAGGER_UI_DIR), name="swagger-ui")
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.add_middleware(RequestBodyGuard, max_bytes=settings.max_body_bytes)
    app.add_middleware(HumanErrorPages)  # a page a person opened fails as a page, not JSON
    app.add_middleware(SecurityHeaders)  # outermost: the guard's 413 and 422 get the headers too

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app


def app_from_environment() -> FastAPI:
    """The app of one worker of ``sstools serve --workers N``: settings from the environment."""
    settings = Settings()
    configure_logging(settings.log_level)
    return create_app(settings)
