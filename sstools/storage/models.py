"""Tables of sstools' own database. Schema changes go through an Alembic migration."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any
from uuid import uuid4

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    DateTime,
    Dialect,
    Index,
    Integer,
    String,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from sstools import clock


def utcnow() -> datetime:
    return clock.now()


def new_uid() -> str:
    """An account's id: random, so never one a removed account had (a username may return)."""
    return uuid4().hex


class UtcDateTime(TypeDecorator[datetime]):
    """SQLite keeps no offset; every stored time is UTC, so it says so when read back."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return value if value is None or value.tzinfo else value.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Who owns what (0009): never reused, unlike the username or (on SQLite) the integer id.
    uid: Mapped[str] = mapped_column(String(32), unique=True, index=True, default=new_uid)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    # In every token as ``ver``; bumped on logout and password change to revoke older tokens.
    token_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class PersonalToken(Base):
    """A person's access token for a client that is not a browser (an MCP host, a script): only
    its SHA-256 is kept; it acts as its account, with the account's role at each call."""

    __tablename__ = "personal_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_uid: Mapped[str] = mapped_column(String(32), index=True)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    last_used_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class LlmUsage(Base):
    """The model tokens one person spent in the chat on one UTC day (0012): what their daily
    budget is checked against and what the audit page shows per person."""

    __tablename__ = "llm_usage"

    user_uid: Mapped[str] = mapped_column(String(32), primary_key=True)  # users.uid
    day: Mapped[date] = mapped_column(Date, primary_key=True, index=True)
    username: Mapped[str] = mapped_column(String(64))  # as it was at the latest call, for display
    tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    # Of ``tokens``, those the tokenizer estimated because the provider reported no usage.
    estimated_tokens: Mapped[int] = mapped_column(BigInteger, default=0)
    calls: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class DatasetReview(Base):
    """Our review verdict on a Superset dataset; Superset itself has no such notion."""

    __tablename__ = "dataset_reviews"

    env_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    dataset_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    status: Mapped[str] = mapped_column(String(32))
    reviewed_by: Mapped[str] = mapped_column(String(64))
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class AuditEntry(Base):
    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, index=True)
    username: Mapped[str | None] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(64), index=True)
    env_id: Mapped[str | None] = mapped_column(String(64))
    outcome: Mapped[str] = mapped_column(String(32))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class Conversation(Base):
    __tablename__ = "conversations"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64), index=True)
    # The owner's account (users.uid): what ownership is checked by (None: nobody's now).
    owner_id: Mapped[str | None] = mapped_column(String(32), index=True, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    active_run_id: Mapped[str | None] = mapped_column(String(64), nullable=True)


class ConversationMessage(Base):
    __tablename__ = "conversation_messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    conversation_id: Mapped[str] = mapped_column(String(64), index=True)
    role: Mapped[str] = mapped_column(String(16))
    text: Mapped[str] = mapped_column(String)
    uicontext: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class AnswerFeedback(Base):
    """A person's 👍 or 👎 on one of the agent's answers (0013), with an optional comment: one
    per person per answer, a second click replaces it."""

    __tablename__ = "answer_feedback"
    __table_args__ = (Index("ix_answer_feedback_rating_at", "rating", "at"),)

    message_id: Mapped[int] = mapped_column(Integer, primary_key=True)  # the assistant's message
    user_uid: Mapped[str] = mapped_column(String(32), primary_key=True)  # users.uid
    conversation_id: Mapped[str] = mapped_column(String(64), index=True)  # goes with it
    username: Mapped[str] = mapped_column(String(64))
    role: Mapped[str] = mapped_column(String(16))  # at the rating: what an eval scenario asks as
    rating: Mapped[str] = mapped_column(String(8))  # "up" | "down"
    comment: Mapped[str | None] = mapped_column(String(1000), nullable=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class ConversationEvent(Base):
    """The per-conversation event log that SSE streams replay (any worker, after any restart)."""

    __tablename__ = "conversation_events"
    __table_args__ = (UniqueConstraint("conversation_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    conversation_id: Mapped[str] = mapped_column(String(64), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(32))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)


class Confirmation(Base):
    """A pending decision, bound to its conversation, interrupt, tool, arguments, env and user."""

    __tablename__ = "confirmations"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    conversation_id: Mapped[str] = mapped_column(String(64), index=True)
    interrupt_id: Mapped[str] = mapped_column(String(64))
    call_id: Mapped[str] = mapped_column(String(128))
    tool: Mapped[str] = mapped_column(String(64))
    args_hash: Mapped[str] = mapped_column(String(64))
    env_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    username: Mapped[str] = mapped_column(String(64))
    requester_id: Mapped[str | None] = mapped_column(String(32), nullable=True)  # users.uid
    event: Mapped[dict[str, Any]] = mapped_column(JSON)  # the confirm_required event, re-sent as is
    status: Mapped[str] = mapped_column(String(16), default="pending", index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    # A write whose stage needs two people (0007): the requester's approval, the role the second
    # person needs, and the second person's decision with its reason.
    first_approved_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    first_approved_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    approver_role: Mapped[str | None] = mapped_column(String(16), nullable=True)
    second_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    second_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    reason: Mapped[str | None] = mapped_column(String(500), nullable=True)
    # The requester's token version at their approval: signed out or a new password since, and
    # the write is not run in their name.
    requester_token_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # A dev approval that covers similar calls for the rest of the conversation (0008).
    similar: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    # When the write a second person approved ran (0010): an approval is spent once.
    grant_used_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    task_id: Mapped[str | None] = mapped_column(String(64), nullable=True)  # the write's task


class WriteRequest(Base):
    """A write into a stage that needs two people, asked through the domain API (0010): held
    until a second person with ``approver_role`` decides; then run once, as its requester."""

    __tablename__ = "write_requests"

    id: Mapped[str] = mapped_column(String(64), primary_key=True, default=lambda: uuid4().hex)
    kind: Mapped[str] = mapped_column(String(32))  # a TaskKind, or "sql"
    body: Mapped[dict[str, Any]] = mapped_column(JSON)  # the route's body, run again as is
    env_id: Mapped[str] = mapped_column(String(64))
    digest: Mapped[str] = mapped_column(String(128))  # the plan's, or the SQL's
    title: Mapped[str] = mapped_column(String(500))  # what it does, in words
    objects: Mapped[list[str]] = mapped_column(JSON, default=list)
    requested_by: Mapped[str] = mapped_column(String(64))
    requester_id: Mapped[str] = mapped_column(String(32))  # users.uid
    requester_token_version: Mapped[int] = mapped_column(Integer)
    approver_role: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
    decided_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    reason: Mapped[str | None] = mapped_column(String(500), nullable=True)
    task_id: Mapped[str | None] = mapped_column(String(64), nullable=True)


class TaskRecord(Base):
    """A durable task as users see it; the workflow itself lives in DBOS's system database."""

    __tablename__ = "tasks"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    workflow: Mapped[str] = mapped_column(String(255))
    objects: Mapped[list[str]] = mapped_column(JSON, default=list)
    # What it writes, by key (``dashboard:<uuid>``), kept after the claims go; None before 0006.
    object_keys: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    env_id: Mapped[str] = mapped_column(String(64), index=True)
    source: Mapped[str | None] = mapped_column(String(255), nullable=True)
    started_by: Mapped[str] = mapped_column(String(64))
    # The starter's account (users.uid) when an account started it; None: the watch, or gone.
    started_by_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    approved_by: Mapped[str | None] = mapped_column(String(64), nullable=True)  # a second person
    status: Mapped[str] = mapped_column(String(16), index=True)
    progress: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    error: Mapped[str | None] = mapped_column(String, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, index=True)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)


class TaskClaim(Base):
    """One object a running task writes; the primary key lets only one task hold it."""

    __tablename__ = "task_claims"

    env_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    object_key: Mapped[str] = mapped_column(String(255), primary_key=True)
    task_id: Mapped[str] = mapped_column(String(64), index=True)


class DashboardTaskRow:
    """The columns of what a task wrote about one dashboard in an environment (a validation run,
    a document): one row a task, the newest the one shown."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    env_id: Mapped[str] = mapped_column(String(64), index=True)
    dashboard_id: Mapped[int] = mapped_column(Integer, index=True)
    dashboard_uuid: Mapped[str] = mapped_column(String(64))
    task_id: Mapped[str] = mapped_column(String(64), unique=True)  # a replayed step stores once
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, index=True)


class DashboardValidation(DashboardTaskRow, Base):
    """One finished validation run of a dashboard in an environment; the newest is «последняя»."""

    __tablename__ = "dashboard_validations"

    title: Mapped[str] = mapped_column(String(500))
    review: Mapped[str] = mapped_column(String(500))
    findings: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)


class DashboardDocument(DashboardTaskRow, Base):
    """A generated markdown document of a dashboard, as also committed to git."""

    __tablename__ = "dashboard_documents"

    author: Mapped[str] = mapped_column(String(16))  # "model" | "template"
    markdown: Mapped[str] = mapped_column(String)
    git_path: Mapped[str] = mapped_column(String(255))
    git_commit: Mapped[str | None] = mapped_column(String(64), nullable=True)
