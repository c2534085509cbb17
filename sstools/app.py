"""The FastAPI application: routers, lifespan, and the one place errors become HTTP responses."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from langchain_core.language_models import BaseChatModel

from sstools import __version__
from sstools.agent.api import router as agent_router
from sstools.agent.wiring import build_agent
from sstools.auth.api import router as auth_router
from sstools.auth.deps import RoleRequired
from sstools.config import Settings
from sstools.domain.api import router as domain_router
from sstools.services import Services
from sstools.superset import (
    SupersetAuthError,
    SupersetBadRequest,
    SupersetError,
    SupersetForbidden,
    SupersetNotFound,
    SupersetUnavailable,
)
from sstools.web.pages import STATIC_DIR, LoginRequired, login_redirect
from sstools.web.pages import router as pages_router
from sstools.web.security import SecurityHeaders

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
    if isinstance(exc, SupersetUnavailable):
        detail = f"Superset environment {exc.env_id!r} is unavailable: {exc.message}"
    elif isinstance(exc, SupersetAuthError | SupersetForbidden):
        detail = (
            f"Superset environment {exc.env_id!r} refused sstools' service account: {exc.message}"
        )
    else:
        detail = f"Superset environment {exc.env_id!r}: {exc.message}"
    return JSONResponse({"detail": detail, "env_id": exc.env_id}, status_code=status)


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
        await agent.start()
        yield
        await agent.aclose()
        await executor.aclose()
        await services.aclose()

    app = FastAPI(title="sstools", version=__version__, lifespan=lifespan)
    app.state.services = services
    executor, agent = build_agent(app, services, chat_model=chat_model)
    app.state.agent = agent
    app.add_exception_handler(SupersetError, _superset_error)
    app.add_exception_handler(RoleRequired, _role_required)
    app.include_router(auth_router)
    app.include_router(domain_router)
    app.include_router(agent_router)
    app.include_router(pages_router)
    app.add_exception_handler(LoginRequired, login_redirect)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.add_middleware(SecurityHeaders)

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app
