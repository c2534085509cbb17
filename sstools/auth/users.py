"""User accounts: create, list, authenticate. Passwords are hashed with Argon2id."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.roles import Role
from sstools.storage.models import User

_hasher = PasswordHasher()
# Verified against when the user does not exist, so timing does not reveal which usernames exist.
_DUMMY_HASH = _hasher.hash("sstools-dummy-password")


class UserView(BaseModel):
    username: str
    role: Role


class UserExists(Exception):
    pass


async def add_user(
    session: AsyncSession, username: str, role: Role, password: str, *, upsert: bool = False
) -> UserView:
    existing = await session.scalar(select(User).where(User.username == username))
    if existing is not None and not upsert:
        raise UserExists(username)
    if existing is None:
        existing = User(username=username)
        session.add(existing)
    existing.role = role.value
    existing.password_hash = _hasher.hash(password)
    await session.commit()
    return UserView(username=username, role=role)


async def list_users(session: AsyncSession) -> list[UserView]:
    rows = await session.scalars(select(User).order_by(User.username))
    return [UserView(username=row.username, role=Role(row.role)) for row in rows]


async def authenticate(session: AsyncSession, username: str, password: str) -> UserView | None:
    user = await session.scalar(select(User).where(User.username == username))
    try:
        _hasher.verify(user.password_hash if user else _DUMMY_HASH, password)
    except (VerificationError, InvalidHashError):
        return None
    if user is None:
        return None
    return UserView(username=user.username, role=Role(user.role))
