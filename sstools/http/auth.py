"""Who is calling: a Bearer token, or the browser's session cookie plus an anti-CSRF header.

A valid signature is not enough: on every request the account is read (one indexed row) — a
removed user is refused, a token older than the user's last logout or password change is
refused, and the role is the account's current one, not the one the token was issued with.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import UTC
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import select

from sstools.auth.personal_tokens import TokenRefused, looks_personal, token_owner
from sstools.auth.roles import Role
from sstools.auth.tokens import Caller, InvalidToken, verify_token
from sstools.errors import SstoolsError
from sstools.http.deps import ServicesDep
from sstools.http.services import Services
from sstools.storage.models import User
from sstools.texts import http as texts

SESSION_COOKIE = "sstools_session"
CSRF_COOKIE = "sstools_csrf"
CSRF_HEADER = "X-CSRF-Token"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Sent by a face that holds every write for its person's own word (MCP, sstools.mcp_face):
# any client may send it, and it only ever makes that client's own writes wait.
HOLD_HEADER = "X-Sstools-Hold"

_bearer = HTTPBearer(auto_error=False, description="The access token from POST /api/auth/login")


class RoleRequired(SstoolsError):
    """The caller is authenticated but their role is below what the operation needs."""

    def __init__(self, required: Role, actual: Role, operation: str) -> None:
        message = texts.ROLE_REQUIRED.format(
            operation=operation,
            required=texts.ROLES[required.value],
            actual=texts.ROLES[actual.value],
        )
        super().__init__(message)
        self.required = required
        self.actual = actual


def _unauthorized(detail: str) -> HTTPException:
    return HTTPException(401, detail, headers={"WWW-Authenticate": "Bearer"})


def request_token(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    """The bearer token, else the session cookie's (empty when there is neither). A personal
    access token rides only in the header: never taken from the cookie."""
    if credentials:
        return credentials.credentials
    cookie = request.cookies.get(SESSION_COOKIE, "")
    return "" if looks_personal(cookie) else cookie


async def resolve_principal(services: Services, token: str) -> Caller:
    """The caller's current account behind ``token`` (a signed session token, or a personal
    access token), or :class:`InvalidToken`."""
    if looks_personal(token):
        async with services.sessions() as session:
            try:
                owner = await token_owner(session, token)
            except TokenRefused as exc:
                raise InvalidToken(str(exc)) from exc
        return Caller.of(owner)
    claims = verify_token(services.settings, token)
    # A short session of its own: this guards event streams too, which must not hold one.
    async with services.sessions() as session:
        account = (
            await session.execute(
                select(User.uid, User.role, User.token_version, User.created_at).where(
                    User.username == claims.username
                )
            )
        ).one_or_none()
    if account is None:
        raise InvalidToken(texts.ACCOUNT_GONE)
    created = account.created_at
    created = created if created.tzinfo else created.replace(tzinfo=UTC)  # SQLite drops the zone
    # An earlier account of the same name had its own tokens: none of them is this account's.
    if claims.version != account.token_version or claims.issued_at < int(created.timestamp()):
        raise InvalidToken(texts.SESSION_REVOKED)
    return Caller(
        username=claims.username,
        role=Role(account.role),
        uid=account.uid,
        token_version=account.token_version,
    )


async def current_principal(
    request: Request,
    services: ServicesDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    token: Annotated[str, Depends(request_token)],
) -> Caller:
    # A cookie rides along on cross-site requests too; the header proves it is our own page.
    if credentials is None and token and request.method not in _SAFE_METHODS:
        expected = request.cookies.get(CSRF_COOKIE, "")
        sent = request.headers.get(CSRF_HEADER, "")
        if not expected or not secrets.compare_digest(expected, sent):
            raise HTTPException(403, texts.CSRF_MISSING.format(header=CSRF_HEADER))
    if not token:
        raise _unauthorized(texts.NOT_AUTHENTICATED)
    try:
        caller = await resolve_principal(services, token)
    except InvalidToken as exc:
        raise _unauthorized(str(exc)) from exc
    if request.headers.get(HOLD_HEADER) == "writes":
        caller = caller.model_copy(update={"holds_writes": True})
    return caller


CurrentUser = Annotated[Caller, Depends(current_principal)]


def require_role(required: Role, operation: str = texts.THIS_OPERATION) -> Callable[..., Caller]:
    def dependency(user: CurrentUser) -> Caller:
        if not user.role.allows(required):
            raise RoleRequired(required, user.role, operation)
        return user

    return dependency


EngineerUser = Annotated[Caller, Depends(require_role(Role.engineer))]
AdminUser = Annotated[Caller, Depends(require_role(Role.admin))]
