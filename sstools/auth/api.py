"""``/api/auth``: log in (token + HttpOnly cookie), log out, who am I."""

from __future__ import annotations

import secrets

from fastapi import APIRouter, HTTPException, Response
from pydantic import BaseModel, Field

from sstools.auth.deps import CSRF_COOKIE, SESSION_COOKIE, CurrentUser
from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import authenticate
from sstools.deps import SessionDep, SettingsDep
from sstools.storage import audit

router = APIRouter(prefix="/api/auth", tags=["auth"])


class LoginRequest(BaseModel):
    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1024)


class TokenResponse(BaseModel):
    access_token: str
    token_type: str = "bearer"  # noqa: S105 - the OAuth2 scheme name
    role: str
    expires_in: int


@router.post("/login")
async def login(
    body: LoginRequest, response: Response, session: SessionDep, settings: SettingsDep
) -> TokenResponse:
    user = await authenticate(session, body.username, body.password)
    if user is None:
        await audit.record(session, action="login", outcome="refused", username=body.username)
        raise HTTPException(401, "invalid username or password")
    token = issue_token(settings, Principal(username=user.username, role=user.role))
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
    return TokenResponse(access_token=token, role=user.role.value, expires_in=settings.jwt_ttl_s)


@router.post("/logout", status_code=204)
async def logout(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/")
    response.delete_cookie(CSRF_COOKIE, path="/")


@router.get("/me")
async def me(user: CurrentUser) -> Principal:
    return user
