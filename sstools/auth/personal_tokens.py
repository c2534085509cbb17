"""Personal access tokens: a person's token for a client that is not a browser (an MCP host, a
script), made by ``sstools tokens create``.

A token is ``sst_pat_`` and 43 random characters, shown once; only its SHA-256 is stored (it is
random, so a plain hash is enough: nothing to guess). It acts as its account with the account's
role at each call, so a demotion applies at once; a revoked or expired token, or one of a removed
account, is refused at once. It never rides in a URL: only in the ``Authorization`` header.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from pydantic import BaseModel
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from sstools import clock
from sstools.errors import SstoolsError
from sstools.storage.models import PersonalToken, User
from sstools.texts import http as texts

PREFIX = "sst_pat_"
# How often a token's last use is written: every call would be a write per request.
_LAST_USE_EVERY = timedelta(minutes=1)


class TokenNameTaken(SstoolsError):
    """The account already has an unrevoked token of this name."""


class TokenNameInvalid(SstoolsError, ValueError):
    """A name that is empty, longer than 64 characters, or not one line of printable text."""


def checked_name(name: str) -> str:
    """``name`` without surrounding spaces, as a token is kept under it.

    Raises:
        TokenNameInvalid: it is empty, over 64 characters, or not one line of printable text.
    """
    name = name.strip()
    if not 1 <= len(name) <= 64 or not name.isprintable():
        raise TokenNameInvalid(texts.PAT_NAME_INVALID)
    return name


class TokenRefused(SstoolsError):
    """Why a presented token does not sign anyone in: unknown, revoked or expired."""


class TokenView(BaseModel):
    """A token as its list shows it: never the token itself."""

    name: str
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None


def looks_personal(token: str) -> bool:
    return token.startswith(PREFIX)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def _account(session: AsyncSession, username: str) -> User | None:
    return await session.scalar(select(User).where(User.username == username))


async def create_token(
    session: AsyncSession, username: str, name: str, *, expires_days: int | None = None
) -> str | None:
    """A new token of ``username`` named ``name``, returned once; None when there is no such user.

    Raises:
        TokenNameInvalid: the name is empty, over 64 characters, or not printable text.
        TokenNameTaken: the account has an unrevoked token of that name.
    """
    name = checked_name(name)
    account = await _account(session, username)
    if account is None:
        return None
    taken = await session.scalar(
        select(PersonalToken.id).where(
            PersonalToken.user_uid == account.uid,
            PersonalToken.name == name,
            PersonalToken.revoked_at.is_(None),
        )
    )
    if taken is not None:
        raise TokenNameTaken(name)
    token = PREFIX + secrets.token_urlsafe(32)
    now = clock.now()
    session.add(
        PersonalToken(
            user_uid=account.uid,
            name=name,
            token_hash=_hash(token),
            created_at=now,
            expires_at=now + timedelta(days=expires_days) if expires_days else None,
        )
    )
    await session.commit()
    return token


async def list_tokens(session: AsyncSession, username: str) -> list[TokenView] | None:
    """The account's unrevoked tokens, oldest first; None when there is no such user."""
    account = await _account(session, username)
    if account is None:
        return None
    rows = await session.scalars(
        select(PersonalToken)
        .where(PersonalToken.user_uid == account.uid, PersonalToken.revoked_at.is_(None))
        .order_by(PersonalToken.created_at)
    )
    return [TokenView.model_validate(row, from_attributes=True) for row in rows]


async def revoke_token(session: AsyncSession, username: str, name: str) -> bool:
    """Revoke the account's token of that name; False when there is none."""
    account = await _account(session, username)
    if account is None:
        return False
    revoked = await session.execute(
        update(PersonalToken)
        .where(
            PersonalToken.user_uid == account.uid,
            PersonalToken.name == name,
            PersonalToken.revoked_at.is_(None),
        )
        .values(revoked_at=clock.now())
    )
    await session.commit()
    return bool(revoked.rowcount)  # type: ignore[attr-defined]


async def token_owner(session: AsyncSession, token: str) -> User:
    """The account a presented token acts as; its last use noted (at most once a minute).

    Raises:
        TokenRefused: no such token, revoked, expired, or its account is gone.
    """
    found = select(PersonalToken).where(PersonalToken.token_hash == _hash(token))
    row = await session.scalar(found)
    now = clock.now()
    if row is None or row.revoked_at is not None:
        raise TokenRefused(texts.PAT_UNKNOWN)
    if row.expires_at is not None and row.expires_at <= now:
        raise TokenRefused(texts.PAT_EXPIRED)
    account = await session.scalar(select(User).where(User.uid == row.user_uid))
    if account is None:
        raise TokenRefused(texts.ACCOUNT_GONE)
    if row.last_used_at is None or now - row.last_used_at >= _LAST_USE_EVERY:
        row.last_used_at = now
        await session.commit()
    return account
