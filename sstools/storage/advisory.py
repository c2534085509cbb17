"""PostgreSQL session-level advisory locks: a claim that dies with the process holding it.

A worker holds its locks on one connection of its own for as long as it lives; when it dies,
PostgreSQL drops the connection and every lock on it, so "the lock is free" proves "the holder
is gone". Keys are 64-bit hashes of a namespaced name, computed here so other processes (and
``pg_locks``) can be matched against them.
"""

from __future__ import annotations

import hashlib

from sqlalchemy.engine import make_url


def is_postgres(database_url: str) -> bool:
    return make_url(database_url).get_backend_name() == "postgresql"


def libpq_url(database_url: str) -> str:
    """``postgresql+psycopg://…`` (SQLAlchemy) → ``postgresql://…`` for psycopg and LangGraph."""
    parsed = make_url(database_url)
    return parsed.set(drivername="postgresql").render_as_string(hide_password=False)


def advisory_key(namespace: str, name: str) -> int:
    """A signed 64-bit key for ``pg_advisory_lock(bigint)``; stable across processes."""
    digest = hashlib.blake2b(f"sstools.{namespace}:{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def lock_parts(key: int) -> tuple[int, int]:
    """How ``pg_locks`` shows a bigint advisory key: (classid, objid), the high and low halves."""
    unsigned = key & 0xFFFF_FFFF_FFFF_FFFF
    return unsigned >> 32, unsigned & 0xFFFF_FFFF


HELD_ADVISORY_LOCKS = (
    "select classid::bigint, objid::bigint from pg_locks "
    "where locktype = 'advisory' and objsubid = 1 and granted and database = "
    "(select oid from pg_database where datname = current_database())"
)
