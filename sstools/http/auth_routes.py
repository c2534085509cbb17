"""``/api/auth``: log in (token + HttpOnly cookie), log out (revokes), who am I."""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, Field

from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import authenticate, revoke_tokens
from sstools.http.auth import CSRF_COOKIE, SESSION_COOKIE, CurrentUser
from sstools.http.deps import ServicesDep, SettingsDep
from sstools.http.login_throttle import LoginThrottle, login_throttle
from sstools.storage import audit
from sstools.texts import http as texts

router = APIRouter(prefix="/api/auth", tags=["auth"])

ThrottleDep = Annotated[LoginThrottle, Depends(login_throttle)]


class LoginRequest(BaseModel):
    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1024)


class TokenResponse(BaseModel):
    access_token: str
    token_type: str = "bearer"  # noqa: S105 - the OAuth2 scheme name
    role: str
    expires_in: int


@router.post(
    "/login",
    responses={
        401: {"description": "Wrong username or password"},
        429: {"description": "Too many attempts for this user or address; see Retry-After"},
    },
)
async def login(
    body: LoginRequest,
    request: Request,
    response: Response,
    services: ServicesDep,
    settings: SettingsDep,
    throttle: ThrottleDep,
) -> TokenResponse:
    address = request.client.host if request.client else "unknown"
    throttled = await throttle.attempt(body.username, address)
    if throttled is not None:
        if throttled.first:
            async with services.sessions() as session:
                await audit.record(
                    session,
                    action="login",
                    outcome="throttled",
                    username=body.username,
                    address=address,
                    limit=throttled.limit,
                )
        raise HTTPException(
            429,
            texts.LOGIN_THROTTLED.format(seconds=throttled.retry_after_s),
            headers={"Retry-After": str(throttled.retry_after_s)},
        )
    async with services.sessions() as session:
        account = await authenticate(session, body.username, body.password)
        if account is None:
            await audit.record(
                session, action="login", outcome="refused", username=body.username, address=address
            )
            raise HTTPException(401, texts.LOGIN_REFUSED)
    principal = Principal(username=account.username, role=account.role)
    token = issue_token(settings, principal, version=account.token_version)
    secure = settings.mode == "production"
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=settings.jwt_ttl_s,
        httponly=True,
        samesite="lax",
        secure=secure,
        path="/",
    )
    # Readable by our own scripts (not HttpOnly): they echo it in the X-CSRF-Token header.
    response.set_cookie(
        CSRF_COOKIE,
        secrets.token_urlsafe(32),
        max_age=settings.jwt_ttl_s,
        httponly=False,
        samesite="strict",
        secure=secure,
        path="/",
    )
    return TokenResponse(access_token=token, role=account.role.value, expires_in=settings.jwt_ttl_s)


@router.post("/logout", status_code=204)
async def logout(response: Response, services: ServicesDep, user: CurrentUser) -> None:
    """Sign out everywhere: every token issued to this user so far stops working.

    Authenticated like any state-changing call (a cookie needs the X-CSRF-Token header), so
    another site cannot sign a user out with a form post.
    """
    async with services.sessions() as session:
        await revoke_tokens(session, user.username)
        await audit.record(session, action="logout", outcome="ok", username=user.username)
    response.delete_cookie(SESSION_COOKIE, path="/")
    response.delete_cookie(CSRF_COOKIE, path="/")


@router.get("/me")
async def me(user: CurrentUser) -> Principal:
    return user
