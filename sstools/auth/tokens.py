"""JWT access tokens (PyJWT, HS256 only): ``sub``, ``role``, ``ver``, ``aud``, ``iat``, ``exp``.

``ver`` is the user's token version when the token was issued; logging out or changing the
password bumps it, which revokes every token issued before (see :mod:`sstools.http.auth`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import jwt
from pydantic import BaseModel, Field, ValidationError

from sstools.auth.roles import Role
from sstools.auth.secret import signing_key
from sstools.config import Settings
from sstools.errors import SstoolsError
from sstools.storage.models import User
from sstools.texts import http as texts

ALGORITHM = "HS256"


class Principal(BaseModel):
    """Who a token names: a username and the role it was issued with."""

    username: str
    role: Role


class Caller(Principal):
    """Who is calling, as proven by a valid token and their current account: its role now, its
    never-reused id (``users.uid``: what they own is keyed by it, so a removed and re-added
    username owns nothing of the old account's) and its token version."""

    uid: str
    token_version: int
    # Asked through a face that holds every write for the person's own word first (MCP): a
    # writing route stores the write as a request of theirs instead of running it.
    holds_writes: bool = False

    @classmethod
    def of(cls, account: User) -> Caller:
        """The caller acting as ``account`` as it is now (its role, id and token version)."""
        return cls(
            username=account.username,
            role=Role(account.role),
            uid=account.uid,
            token_version=account.token_version,
        )


class TokenClaims(BaseModel):
    """What a valid token says; the account's current role is looked up, not taken from here."""

    username: str
    role: Role
    version: int = Field(strict=True)  # a bool or a string is not a version
    issued_at: float


class InvalidToken(SstoolsError):
    """Missing, expired, tampered, wrong-audience, revoked or otherwise unusable token."""


def issue_token(
    settings: Settings, principal: Principal, *, version: int = 0, ttl_s: int | None = None
) -> str:
    now = datetime.now(UTC)
    claims = {
        "sub": principal.username,
        "role": principal.role.value,
        "ver": version,
        "aud": settings.jwt_audience,
        "iat": now,
        "exp": now + timedelta(seconds=ttl_s if ttl_s is not None else settings.jwt_ttl_s),
    }
    return jwt.encode(claims, signing_key(settings), algorithm=ALGORITHM)


def verify_token(settings: Settings, token: str) -> TokenClaims:
    try:
        claims = jwt.decode(
            token,
            signing_key(settings),
            algorithms=[ALGORITHM],  # an allow-list: "none" and key-confusion tokens fail here
            audience=settings.jwt_audience,
            options={"require": ["exp", "iat", "aud", "sub", "role", "ver"]},
        )
    except jwt.ExpiredSignatureError as exc:
        raise InvalidToken(texts.SESSION_EXPIRED) from exc
    except jwt.PyJWTError as exc:
        raise InvalidToken(texts.CREDENTIAL_INVALID.format(reason=exc)) from exc
    try:
        return TokenClaims(
            username=claims["sub"],
            role=claims["role"],
            version=claims["ver"],
            issued_at=claims["iat"],
        )
    except ValidationError as exc:
        raise InvalidToken(texts.CLAIMS_INVALID) from exc
