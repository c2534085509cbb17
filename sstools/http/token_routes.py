"""``/api/auth/tokens``: a person's own access tokens (the settings page) — list, create (shown
once), revoke. A token is made only from a signed-in session, never by another token: one that
leaks cannot mint more."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Path
from pydantic import AfterValidator, BaseModel, Field

from sstools.auth.personal_tokens import (
    TokenNameTaken,
    TokenView,
    checked_name,
    create_token,
    list_tokens,
    looks_personal,
    revoke_token,
)
from sstools.http.audit_trail import AuditTrail
from sstools.http.auth import CurrentUser, request_token
from sstools.http.deps import SessionDep
from sstools.texts import http as texts

router = APIRouter(prefix="/api/auth/tokens", tags=["auth"])

# One line of printable text (the rule storage keeps): it is shown on pages and in the CLI's list.
TokenName = Annotated[str, AfterValidator(checked_name)]


class TokenRequest(BaseModel):
    name: TokenName
    expires_days: int | None = Field(default=None, ge=1, le=3650)


class TokenCreated(BaseModel):
    name: str
    token: str  # shown once: only its hash is kept


@router.get("")
async def my_tokens(session: SessionDep, user: CurrentUser) -> list[TokenView]:
    """The caller's tokens: names, dates and last use, never the tokens."""
    return await list_tokens(session, user.username) or []


@router.post(
    "",
    status_code=201,
    responses={
        403: {"description": "asked with a personal access token, not a signed-in session"},
        409: {"description": "the caller already has a token of that name"},
    },
)
async def create_my_token(
    body: TokenRequest,
    session: SessionDep,
    user: CurrentUser,
    token: Annotated[str, Depends(request_token)],
) -> TokenCreated:
    """A new token acting as the caller; its value is in this answer only."""
    if looks_personal(token):
        raise HTTPException(403, texts.PAT_FROM_SESSION_ONLY)
    try:
        made = await create_token(session, user.username, body.name, expires_days=body.expires_days)
    except TokenNameTaken as exc:
        raise HTTPException(409, texts.PAT_NAME_TAKEN.format(name=body.name)) from exc
    if made is None:  # the account was removed between the sign-in check and now
        raise HTTPException(401, texts.ACCOUNT_GONE)
    await AuditTrail(session, user).record("token_created", "ok", name=body.name)
    return TokenCreated(name=body.name, token=made)


@router.delete("/{name}", status_code=204, responses={404: {"description": "no such token"}})
async def revoke_my_token(
    name: Annotated[str, Path(min_length=1, max_length=64)], session: SessionDep, user: CurrentUser
) -> None:
    """Revoke the caller's token ``name``: it stops working at the next call."""
    if not await revoke_token(session, user.username, name):
        raise HTTPException(404, texts.PAT_NOT_FOUND.format(name=name))
    await AuditTrail(session, user).record("token_revoked", "ok", name=name)
