"""The FastAPI application: routers, lifespan, and the one place errors become HTTP responses."""

from __future__ import annotations

import json
import math
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from langchain_core.language_models import BaseChatModel
from sqlalchemy.exc import TimeoutError as PoolTimeout

from sstools import __version__
from sstools.agent.api import router as agent_router
from sstools.agent.run.wiring import build_agent
from sstools.config import Settings
from sstools.domain.api import router as domain_router
from sstools.git_store import GitStoreError
from sstools.http.auth import RoleRequired
from sstools.http.auth_routes import router as auth_router
from sstools.http.services import Services
from sstools.http.task_routes import router as tasks_router
from sstools.http.task_routes import task_conflict, task_limited
from sstools.logs import configure_logging
from sstools.superset import (
    SupersetAuthError,
    SupersetBadRequest,
    SupersetError,
    SupersetForbidden,
    SupersetNotFound,
    SupersetUnavailable,
)
from sstools.tasks import TaskConflict, TaskLimited
from sstools.web.api_docs import SWAGGER_UI_DIR
from sstools.web.api_docs import router as api_docs_router
from sstools.web.metrics import router as metrics_router
from sstools.web.pages import STATIC_DIR, LoginRequired, login_redirect
from sstools.web.pages import router as pages_router
from sstools.web.request_body import RequestBodyGuard
from sstools.web.security import NO_STORE, SECURITY_HEADERS, SecurityHeaders

logger = structlog.get_logger(__name__)

# Superset's refusals, as the status our own API answers with.
_SUPERSET_STATUS: dict[type[SupersetError], int] = {
    SupersetNotFound: 404,
    SupersetBadRequest: 422,
    SupersetUnavailable: 503,
    SupersetAuthError: 502,
    SupersetForbidden: 502,
}


async def _superset_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, SupersetError)
    status = _SUPERSET_STATUS.get(type(exc), 502)
    if isinstance(exc, SupersetBadRequest):
        # A refusal of the input is a 422 like our own: the list of errors, naming the field.
        loc = ["body", exc.field] if exc.field else ["request"]
        error = {"type": "superset_refused", "loc": loc, "msg": exc.message}
        return JSONResponse({"detail": [error], "env_id": exc.env_id}, status_code=422)
    if isinstance(exc, SupersetUnavailable):
        detail = f"Superset environment {exc.env_id!r} is unavailable: {exc.message}"
    elif isinstance(exc, SupersetAuthError | SupersetForbidden):
        detail = (
            f"Superset environment {exc.env_id!r} refused sstools' service account: {exc.message}"
        )
    else:
        detail = f"Superset environment {exc.env_id!r}: {exc.message}"
    return JSONResponse({"detail": detail, "env_id": exc.env_id}, status_code=status)


# A 422 echoes the offending value so a person can see what was wrong, but never a secret and
# never megabytes: fields whose name says secret are redacted, long values cut.
_SECRET_NAME = re.compile(r"password|secret|token|key", re.IGNORECASE)
_ECHO_CHARS = 200
REDACTED = "[redacted]"


def _plain(value: Any) -> Any:
    """``value`` as JSON-safe data: secrets redacted, no NaN, no lone surrogates."""
    if isinstance(value, dict):
        return {
            _plain(str(key)): REDACTED if _SECRET_NAME.search(str(key)) else _plain(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(item) for item in value]
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if abs(value) < 2**53 else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return _plain(str(value))


def _echo(value: Any, loc: list[Any]) -> Any:
    if any(_SECRET_NAME.search(str(part)) for part in loc[1:]):
        return REDACTED
    plain = _plain(value)
    text = plain if isinstance(plain, str) else json.dumps(plain, ensure_ascii=False)
    return plain if len(text) <= _ECHO_CHARS else text[:_ECHO_CHARS] + "…"


async def _invalid_request(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = []
    for error in exc.errors():
        loc = [_plain(part) for part in error.get("loc", ())]
        shown: dict[str, Any] = {"type": error.get("type"), "loc": loc, "msg": error.get("msg")}
        if "input" in error:
            shown["input"] = _echo(error["input"], loc)
        if error.get("ctx"):
            shown["ctx"] = {key: _echo(value, [key]) for key, value in error["ctx"].items()}
        errors.append(shown)
    return JSONResponse({"detail": errors}, status_code=422)


async def _internal_error(request: Request, exc: Exception) -> JSONResponse:
    """The last resort: no internals in the body, the full story in the log."""
    logger.error("unhandled_error", method=request.method, path=request.url.path, exc_info=exc)
    return JSONResponse(
        {"detail": "internal server error; it has been logged"},
        status_code=500,
        headers=SECURITY_HEADERS | NO_STORE,  # this response bypasses every middleware
    )


# Every connection stayed busy for the pool's whole wait: overloaded, not broken.
DATABASE_BUSY_RETRY_AFTER_S = 5


async def _database_busy(request: Request, exc: Exception) -> JSONResponse:
    logger.warning("database_pool_exhausted", method=request.method, path=request.url.path)
    detail = "the service is overloaded: no database connection came free in time; try again"
    if request.method not in {"GET", "HEAD", "OPTIONS"}:
        detail += " (what this request did before that may have been saved: check first)"
    return JSONResponse(
        {"detail": detail},
        status_code=503,
        headers={"Retry-After": str(DATABASE_BUSY_RETRY_AFTER_S)},
    )


async def _git_refused(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, GitStoreError)
    return JSONResponse({"detail": str(exc)}, status_code=exc.status)


async def _role_required(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RoleRequired)
    return JSONResponse({"detail": str(exc), "required_role": exc.required.value}, status_code=403)


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
        await services.tasks.recover()  # resumes interrupted tasks or ends them `failed`
        await agent.start()
        yield
        await agent.aclose()
        await executor.aclose()
        await services.aclose()

    # Swagger UI is served from our own assets (api_docs); ReDoc needs inline styles: off.
    app = FastAPI(
        title="sstools", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None
    )
    app.state.services = services
    executor, agent = build_agent(app, services, chat_model=chat_model)
    app.state.agent = agent
    app.add_exception_handler(SupersetError, _superset_error)
    app.add_exception_handler(RoleRequired, _role_required)
    app.add_exception_handler(GitStoreError, _git_refused)
    app.add_exception_handler(TaskConflict, task_conflict)
    app.add_exception_handler(TaskLimited, task_limited)
    app.add_exception_handler(PoolTimeout, _database_busy)
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_exception_handler(Exception, _internal_error)
    app.include_router(auth_router)
    app.include_router(domain_router)
    app.include_router(tasks_router)
    app.include_router(agent_router)
    app.include_router(pages_router)
    app.include_router(api_docs_router)
    app.include_router(metrics_router)
    app.add_exception_handler(LoginRequired, login_redirect)
    app.mount("/static/swagger-ui", StaticFiles(directory=SWAGGER_UI_DIR), name="swagger-ui")
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.add_middleware(RequestBodyGuard, max_bytes=settings.max_body_bytes)
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
