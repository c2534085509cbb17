"""A fresh PostgreSQL database per test (``test_<random>``), dropped after; skipped where absent."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy.engine import make_url

POSTGRES_URL = os.environ.get(
    "SSTOOLS_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
)


@pytest.fixture
def pg_url() -> Iterator[str]:
    try:
        admin = psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable at {POSTGRES_URL}: {exc}".splitlines()[0])
    name = f"test_{uuid.uuid4().hex[:12]}"
    admin.execute(f'create database "{name}"')
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        admin.execute(f'drop database if exists "{name}" with (force)')
        admin.close()
