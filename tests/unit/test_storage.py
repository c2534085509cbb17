"""Storage on SQLite, and on PostgreSQL where one is reachable (skipped with the reason if not)."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import select, update

from sstools.agent.events import Done, EventLog, MessageEvent, RunStarted
from sstools.auth.roles import Role
from sstools.auth.users import UserExists, add_user, authenticate, list_users
from sstools.domain.reviews import ReviewStatus, get_review, set_review
from sstools.storage import audit
from sstools.storage.db import create_engine, migrate, session_factory
from sstools.storage.models import AuditEntry, Confirmation, User

POSTGRES_URL = os.environ.get(
    "SSTOOLS_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
)


def _postgres_schema_url() -> str:
    """A fresh schema per run in the test database, so runs never see each other's rows."""
    try:
        with psycopg.connect(POSTGRES_URL, connect_timeout=3) as conn:
            schema = f"sstools_test_{uuid.uuid4().hex[:10]}"
            conn.execute(f'create schema "{schema}"')
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable at {POSTGRES_URL}: {exc}".splitlines()[0])
    return f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'nested' / 'sstools.db'}"
        return
    url = _postgres_schema_url()
    yield url
    schema = url.rsplit("%3D", 1)[1]
    with psycopg.connect(POSTGRES_URL) as conn:
        conn.execute(f'drop schema "{schema}" cascade')


async def test_migrations_are_idempotent_and_users_round_trip(database_url: str) -> None:
    migrate(database_url)
    migrate(database_url)  # a second `serve` start changes nothing
    engine = create_engine(database_url)
    async with session_factory(engine)() as session:
        await add_user(session, "ирина", Role.engineer, "s3cret-pass")
        with pytest.raises(UserExists):
            await add_user(session, "ирина", Role.admin, "other")
        assert [u.role for u in await list_users(session)] == [Role.engineer]
        stored = await session.scalar(select(User))
        assert stored is not None
        assert "s3cret-pass" not in stored.password_hash
        assert stored.password_hash.startswith("$argon2id$")
        assert (await authenticate(session, "ирина", "s3cret-pass")) is not None
        assert await authenticate(session, "ирина", "wrong") is None
        assert await authenticate(session, "nobody", "s3cret-pass") is None
        await add_user(session, "ирина", Role.admin, "new-pass", upsert=True)
        assert (await list_users(session))[0].role is Role.admin
    await engine.dispose()


async def test_reviews_and_audit_persist(database_url: str) -> None:
    migrate(database_url)
    engine = create_engine(database_url)
    async with session_factory(engine)() as session:
        assert (await get_review(session, "ss-dev", 7)).status is ReviewStatus.unreviewed
        await set_review(session, "ss-dev", 7, ReviewStatus.changes_requested, "ирина")
        await set_review(session, "ss-dev", 7, ReviewStatus.approved, "пётр")
        review = await get_review(session, "ss-dev", 7)
        assert (review.status, review.reviewed_by) == (ReviewStatus.approved, "пётр")
        assert (await get_review(session, "prod", 7)).status is ReviewStatus.unreviewed
        await audit.record(session, action="test", outcome="ok", username="ирина", n=1)
        entry = await session.scalar(select(AuditEntry))
        assert entry is not None
        assert entry.detail == {"n": 1}
    await engine.dispose()


async def test_event_log_and_decide_once_hold_on_each_backend(database_url: str) -> None:
    migrate(database_url)
    engine = create_engine(database_url)
    sessions = session_factory(engine)
    log = EventLog(sessions)
    seqs = [
        await log.append("c1", event)
        for event in (
            RunStarted(run_id="r"),
            MessageEvent(text="привет", run_id="r"),
            Done(run_id="r"),
        )
    ]
    await log.append("c2", RunStarted(run_id="other"))
    assert seqs == [1, 2, 3]
    assert [(seq, data["type"]) for seq, data in await log.since("c1", 1)] == [
        (2, "message"),
        (3, "done"),
    ]
    assert (await log.since("c1", 1))[0][1]["text"] == "привет"

    async with sessions() as session:
        session.add(
            Confirmation(
                id="cf_1",
                conversation_id="c1",
                interrupt_id="i",
                call_id="call",
                tool="t",
                args_hash="h",
                env_id=None,
                username="u",
                event={},
                status="pending",
                expires_at=datetime.now(UTC) + timedelta(minutes=5),
            )
        )
        await session.commit()

    async def decide() -> int:
        async with sessions() as session:
            result = await session.execute(
                update(Confirmation)
                .where(Confirmation.id == "cf_1", Confirmation.status == "pending")
                .values(status="approved")
            )
            await session.commit()
            return int(result.rowcount)  # type: ignore[attr-defined]

    assert sorted(await asyncio.gather(*(decide() for _ in range(10)))) == [0] * 9 + [1]
    await engine.dispose()
