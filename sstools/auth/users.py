"""User accounts: create, change, remove, list, authenticate. Passwords are hashed with Argon2id.

Hashing takes a CPU for about half a second; it runs in worker threads (a few at a time, so a
login flood cannot eat the memory Argon2 needs per hash) and never on the event loop.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import TypeVar
from weakref import WeakKeyDictionary

import anyio.to_thread
from anyio import CapacityLimiter
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from pydantic import BaseModel
from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.roles import Role
from sstools.errors import SstoolsError
from sstools.storage.models import User

_hasher = PasswordHasher()
# Verified against when the user does not exist, so timing does not reveal which usernames exist.
_DUMMY_HASH = _hasher.hash("sstools-dummy-password")
_HASHING_THREADS = max(1, os.cpu_count() or 1)
# One per event loop: a limiter belongs to the loop it was first used on.
_limiters: WeakKeyDictionary[asyncio.AbstractEventLoop, CapacityLimiter] = WeakKeyDictionary()
_T = TypeVar("_T")


class UserView(BaseModel):
    username: str
    role: Role


class Account(UserView):
    """A user as a login sees them: with the token version their new token will carry."""

    token_version: int


class UserExists(SstoolsError):
    pass


async def _off_loop(function: Callable[..., _T], *args: str) -> _T:
    loop = asyncio.get_running_loop()
    limiter = _limiters.get(loop)
    if limiter is None:
        limiter = _limiters[loop] = CapacityLimiter(_HASHING_THREADS)
    return await anyio.to_thread.run_sync(function, *args, limiter=limiter)


def _matches(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


async def hash_password(password: str) -> str:
    return await _off_loop(_hasher.hash, password)


async def add_user(
    session: AsyncSession, username: str, role: Role, password: str, *, upsert: bool = False
) -> UserView:
    """Create a user; with ``upsert``, set an existing one's role and password.

    A changed password revokes the user's tokens (their role is read on every request anyway).
    """
    existing = await session.scalar(select(User).where(User.username == username))
    if existing is not None and not upsert:
        raise UserExists(username)
    if existing is None:
        existing = User(username=username, token_version=0)
        session.add(existing)
    elif not await _off_loop(_matches, existing.password_hash, password):
        existing.token_version += 1
    existing.role = role.value
    existing.password_hash = await hash_password(password)
    await session.commit()
    return UserView(username=username, role=role)


async def set_role(session: AsyncSession, username: str, role: Role) -> bool:
    """Change a user's role, effective on their next request; False when there is no such user."""
    result = await session.execute(
        update(User).where(User.username == username).values(role=role.value)
    )
    await session.commit()
    return bool(result.rowcount)  # type: ignore[attr-defined]


async def remove_user(session: AsyncSession, username: str) -> bool:
    """Delete a user; their tokens stop working at once. False when there is no such user."""
    result = await session.execute(delete(User).where(User.username == username))
    await session.commit()
    return bool(result.rowcount)  # type: ignore[attr-defined]


async def revoke_tokens(session: AsyncSession, username: str) -> None:
    """Bump the token version: every token issued to ``username`` so far stops working."""
    await session.execute(
        update(User).where(User.username == username).values(token_version=User.token_version + 1)
    )
    await session.commit()


async def list_users(session: AsyncSession) -> list[UserView]:
    rows = await session.scalars(select(User).order_by(User.username))
    return [UserView(username=row.username, role=Role(row.role)) for row in rows]


async def authenticate(session: AsyncSession, username: str, password: str) -> Account | None:
    """The account whose password this is, else None; hashes as long for unknown usernames.

    The session is closed before hashing, so a login holds no database connection for the half
    second the hash takes.
    """
    user = await session.scalar(select(User).where(User.username == username))
    await session.close()
    if not await _off_loop(_matches, user.password_hash if user else _DUMMY_HASH, password):
        return None
    if user is None:
        return None
    return Account(username=user.username, role=Role(user.role), token_version=user.token_version)
