"""Storage on SQLite, and on PostgreSQL where one is reachable (skipped with the reason if not)."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from sstools.agent.events import Done, EventLog, MessageEvent, RunStarted
from sstools.auth.roles import Role
from sstools.auth.users import (
    UserExists,
    add_user,
    authenticate,
    list_users,
    remove_user,
    revoke_tokens,
    set_role,
)
from sstools.domain.reviews import ReviewStatus, get_review, set_review
from sstools.storage import audit, confirmations, feedback, llm_usage, runs
from sstools.storage.confirmations import ConfirmationStatus
from sstools.storage.db import create_engine, migrate, session_factory
from sstools.storage.feedback import Rating
from sstools.storage.models import (
    AuditEntry,
    Confirmation,
    Conversation,
    ConversationMessage,
    User,
)
from sstools.storage.runs import Claim


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """SQLite in a folder not made yet, or a fresh PostgreSQL database (``pg_url``)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'nested' / 'sstools.db'}"
    url: str = request.getfixturevalue("pg_url")
    return url


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

    now = datetime.now(UTC)

    async def save(confirmation_id: str, expires_at: datetime) -> None:
        async with sessions() as session:
            row = confirmations.pending_row(
                confirmation_id=confirmation_id,
                conversation_id="c1",
                interrupt_id="i",
                call_id="call",
                tool="t",
                args_hash="h",
                env_id=None,
                username="u",
                requester_id="u-uid",
                event={"type": "confirm_required"},
                expires_at=expires_at,
            )
            session.add(row)
            await session.commit()

    async def decide(confirmation_id: str, status: ConfirmationStatus) -> bool:
        async with sessions() as session:
            return await confirmations.decide_once(session, confirmation_id, status, now)

    async def expire(conversation_id: str, at: datetime) -> list[str]:
        async with sessions() as session:
            return [c.id for c in await confirmations.expire_due(session, conversation_id, at)]

    async def status(confirmation_id: str) -> str | None:
        async with sessions() as session:
            return await session.scalar(
                select(Confirmation.status).where(Confirmation.id == confirmation_id)
            )

    await save("cf_1", now + timedelta(minutes=5))
    async with sessions() as session:
        pending = await confirmations.find_pending(session, "c1")
    assert pending is not None
    assert pending.id == "cf_1"
    # Ten approvals and ten denials race: exactly one wins, and its status is the one stored.
    racing = [ConfirmationStatus.approved, ConfirmationStatus.denied] * 10
    wins = await asyncio.gather(*(decide("cf_1", status) for status in racing))
    assert sum(wins) == 1
    assert await status("cf_1") == racing[wins.index(True)]
    assert not await decide("cf_1", ConfirmationStatus.approved)  # decided stays decided
    assert await expire("c1", now + timedelta(hours=1)) == []  # …and never expires after
    async with sessions() as session:
        assert await confirmations.find_pending(session, "c1") is None

    await save("cf_2", now + timedelta(minutes=5))
    assert await expire("c1", now) == []  # not yet due
    assert await expire("c1", now + timedelta(minutes=5)) == ["cf_2"]
    assert await expire("c1", now + timedelta(minutes=6)) == []  # expired once
    assert not await decide("cf_2", ConfirmationStatus.approved)  # too late to approve
    assert await status("cf_2") == ConfirmationStatus.expired

    await save("cf_3", now - timedelta(seconds=1))  # already past its expiry when decided
    assert not await decide("cf_3", ConfirmationStatus.approved)
    assert await status("cf_3") == ConfirmationStatus.pending
    await engine.dispose()


async def test_a_run_is_claimed_once_and_capped_per_user_on_each_backend(database_url: str) -> None:
    migrate(database_url)
    engine = create_engine(database_url)
    sessions = session_factory(engine)
    async with sessions() as session:
        session.add_all(Conversation(id=f"c{i}", owner="u") for i in range(3))
        session.add(Conversation(id="theirs", owner="other"))
        await session.commit()

    async def claim(conversation_id: str, run_id: str, capped_for: str | None = "u") -> Claim:
        async with sessions() as session:
            return await runs.claim_run(
                session, conversation_id, run_id, capped_for=capped_for, cap=2
            )

    racing = await asyncio.gather(*(claim("c0", f"r{i}") for i in range(10)))
    assert sorted(racing) == sorted([Claim.claimed] + [Claim.busy] * 9)
    assert await claim("c1", "r") is Claim.claimed
    assert await claim("c2", "r") is Claim.over_cap  # two of u's conversations are running
    assert await claim("theirs", "r", capped_for="other") is Claim.claimed  # per user
    assert await claim("c0", "again", capped_for=None) is Claim.busy  # a resume is not capped…
    async with sessions() as session:
        await runs.release_run(session, "c0")
    assert await claim("c2", "r") is Claim.claimed  # …and a released slot is free again
    async with sessions() as session:
        claimed = await runs.claimed_runs(session)
        for conversation, _ in claimed:
            await runs.release_run(session, conversation)
    assert sorted(conversation for conversation, _ in claimed) == ["c1", "c2", "theirs"]
    assert await claim("c1", "after-restart") is Claim.claimed
    await engine.dispose()


async def test_role_changes_revocation_and_removal_on_each_backend(database_url: str) -> None:
    migrate(database_url)
    engine = create_engine(database_url)
    async with session_factory(engine)() as session:
        await add_user(session, "пётр", Role.engineer, "pw-1")
        version = select(User.token_version).where(User.username == "пётр")
        assert await session.scalar(version) == 0
        await revoke_tokens(session, "пётр")
        await revoke_tokens(session, "пётр")
        assert await session.scalar(version) == 2
        await add_user(session, "пётр", Role.engineer, "pw-1", upsert=True)  # same password
        assert await session.scalar(version) == 2
        await add_user(session, "пётр", Role.engineer, "pw-2", upsert=True)
        assert await session.scalar(version) == 3
        assert await set_role(session, "пётр", Role.analyst) is True
        assert [u.role for u in await list_users(session)] == [Role.analyst]
        assert await set_role(session, "nobody", Role.admin) is False
        assert await remove_user(session, "пётр") is True
        assert await remove_user(session, "пётр") is False
        assert await list_users(session) == []
    await engine.dispose()


async def test_token_use_adds_up_per_person_and_day_on_each_backend(database_url: str) -> None:
    migrate(database_url)
    engine = create_engine(database_url)
    sessions = session_factory(engine)
    day, next_day = date(2026, 12, 7), date(2026, 12, 8)
    at = datetime(2026, 12, 7, 12, tzinfo=UTC)

    async def add(uid: str, name: str, when: date, tokens: int, estimated: bool = False) -> None:
        async with sessions() as session:
            await llm_usage.add(
                session,
                user_uid=uid,
                username=name,
                day=when,
                tokens=tokens,
                estimated=estimated,
                at=at,
            )

    # Twenty calls of one person at once, the first of the day among them: none is lost.
    await asyncio.gather(*(add("a-uid", "alice", day, 100) for _ in range(20)))
    await add("a-uid", "alice", day, 50, estimated=True)
    await add("b-uid", "bob", day, 10)
    await add("a-uid", "alice", next_day, 7)
    async with sessions() as session:
        assert await llm_usage.used_on(session, "a-uid", day) == 2050
        assert await llm_usage.used_on(session, "a-uid", next_day) == 7
        assert await llm_usage.used_on(session, "c-uid", day) == 0
        rows = await llm_usage.use_per_person(session, day, next_day)
    assert [(r.day, r.username, r.tokens, r.estimated_tokens, r.calls) for r in rows] == [
        (next_day, "alice", 7, 0, 1),
        (day, "alice", 2050, 50, 21),
        (day, "bob", 10, 0, 1),
    ]
    await engine.dispose()


async def test_answer_ratings_replace_per_person_and_keep_their_turn_on_each_backend(
    database_url: str,
) -> None:
    migrate(database_url)
    engine = create_engine(database_url)
    sessions = session_factory(engine)
    at = datetime(2026, 12, 7, 12, tzinfo=UTC)
    async with sessions() as session:
        said = [
            ConversationMessage(conversation_id="c1", role=role, text=text, uicontext=None)
            for role, text in [
                ("user", "первый вопрос"),
                ("assistant", "первый ответ"),
                ("user", "второй вопрос"),
                ("assistant", "второй ответ"),
            ]
        ]
        session.add_all(said)
        await session.commit()
        first_answer, second_answer = said[1].id, said[3].id

    async def rate(message_id: int, uid: str, rating: Rating, minutes: int) -> None:
        async with sessions() as session:
            await feedback.rate(
                session,
                message_id=message_id,
                conversation_id="c1",
                user_uid=uid,
                username=uid,
                role="engineer",
                rating=rating,
                comment=f"{rating.value} {minutes}",
                at=at + timedelta(minutes=minutes),
            )

    # Clicks of one person on one answer at once: one rating stays, never a duplicate.
    await asyncio.gather(*(rate(second_answer, "alice", Rating.up, n) for n in range(5)))
    await rate(second_answer, "alice", Rating.down, 10)
    await rate(first_answer, "bob", Rating.up, 11)
    async with sessions() as session:
        assert {
            m: g.rating for m, g in (await feedback.given_in(session, "c1", "alice")).items()
        } == {second_answer: Rating.down}
        down = await feedback.rated_turns(session, Rating.down)
        up = await feedback.rated_turns(session, Rating.up)
    assert [(t.message_id, t.answer, t.given.comment) for t in down] == [
        (second_answer, "второй ответ", "down 10")
    ]
    assert down[0].asked == feedback.Asked(text="второй вопрос", uicontext=None)
    assert down[0].earlier == [feedback.Asked(text="первый вопрос", uicontext=None)]
    assert [(t.message_id, t.username, t.earlier) for t in up] == [(first_answer, "bob", [])]
    await engine.dispose()
