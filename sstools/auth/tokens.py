"""JWT access tokens (PyJWT, HS256 only): ``sub``, ``role``, ``aud``, ``iat``, ``exp``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import jwt
from pydantic import BaseModel, ValidationError

from sstools.auth.roles import Role
from sstools.config import Settings

ALGORITHM = "HS256"


class Principal(BaseModel):
    """Who is calling, as proven by a valid token."""

    username: str
    role: Role


class InvalidToken(Exception):
    """Missing, expired, tampered, wrong-audience or otherwise unusable token."""


def issue_token(settings: Settings, principal: Principal, *, ttl_s: int | None = None) -> str:
    now = datetime.now(UTC)
    claims = {
        "sub": principal.username,
        "role": principal.role.value,
        "aud": settings.jwt_audience,
        "iat": now,
        "exp": now + timedelta(seconds=ttl_s if ttl_s is not None else settings.jwt_ttl_s),
    }
    return jwt.encode(claims, settings.jwt_secret.get_secret_value(), algorithm=ALGORITHM)


def verify_token(settings: Settings, token: str) -> Principal:
    try:
        claims = jwt.decode(
            token,
            settings.jwt_secret.get_secret_value(),
            algorithms=[ALGORITHM],  # an allow-list: "none" and key-confusion tokens fail here
            audience=settings.jwt_audience,
            options={"require": ["exp", "iat", "aud", "sub", "role"]},
        )
    except jwt.ExpiredSignatureError as exc:
        raise InvalidToken("token expired") from exc
    except jwt.PyJWTError as exc:
        raise InvalidToken(f"invalid token: {exc}") from exc
    try:
        return Principal(username=claims["sub"], role=claims["role"])
    except ValidationError as exc:
        raise InvalidToken("invalid token: unknown role") from exc
