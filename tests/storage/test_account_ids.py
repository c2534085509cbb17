"""Migration 0009 (issue 32 §3) over rows an older schema held, on SQLite and on PostgreSQL
(where one is reachable): every account gets its own never-reused id, and what each owned —
conversations, requests, tasks — is given that account's id; a name with no account owns
nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from sstools.storage.db import migrate

ROWS = """
insert into users (username, password_hash, role, created_at, token_version)
  values ('ирина', 'h', 'engineer', '2026-01-01', 0), ('пётр', 'h', 'analyst', '2026-01-01', 0);
insert into conversations (id, owner, created_at) values ('c1', 'ирина', '2026-01-02'),
  ('c2', 'ушедший', '2026-01-02');
insert into confirmations (id, conversation_id, interrupt_id, call_id, tool, args_hash, username,
  event, status, created_at, expires_at)
  values ('k1', 'c1', 'i', 'call', 't', 'h', 'ирина', '{}', 'pending', '2026-01-02', '2026-01-03');
insert into tasks (id, kind, workflow, objects, env_id, started_by, status, created_at)
  values ('t1', 'deploy', 'w', '[]', 'prod', 'пётр', 'queued', '2026-01-02');
"""


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'sstools.db'}"
    url: str = request.getfixturevalue("pg_url")
    return url


def test_owners_keep_what_they_owned_by_their_new_account_ids(database_url: str) -> None:
    migrate(database_url, "0008")
    engine = sa.create_engine(database_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as connection:
        for statement in ROWS.split(";"):
            if statement.strip():
                connection.exec_driver_sql(statement)
    migrate(database_url)
    with engine.connect() as connection:
        uids: dict[str, str] = dict(
            connection.execute(sa.text("select username, uid from users")).all()
        )
        owners: dict[str, str | None] = dict(
            connection.execute(sa.text("select id, owner_id from conversations")).all()
        )
        requester = connection.scalar(sa.text("select requester_id from confirmations"))
        starter = connection.scalar(sa.text("select started_by_id from tasks"))
    engine.dispose()
    assert len(set(uids.values())) == 2
    assert all(len(uid) == 32 for uid in uids.values())
    assert owners == {"c1": uids["ирина"], "c2": None}  # a name with no account: nobody's
    assert requester == uids["ирина"]
    assert starter == uids["пётр"]
