from __future__ import annotations

from pathlib import Path

import pytest

from sstools.config import Settings
from sstools.testing.fake_superset import FakeSuperset
from tests.conftest import make_settings, seed_users, write_environments_file


@pytest.fixture
def fake_superset() -> FakeSuperset:
    return FakeSuperset()


def environments_for(folder: Path, fake_superset: FakeSuperset) -> Path:
    """The faked ``ss-dev`` and an unreachable ``prod``, written as an environments file."""
    return write_environments_file(
        folder,
        [
            {
                "id": "ss-dev",
                "name": "Dev",
                "stage": "dev",
                "url": "http://superset.test",
                "username": fake_superset.username,
                "password_env": "SVC_PASSWORD",
            },
            # Nothing listens on port 9 (discard): this environment is unreachable.
            {
                "id": "prod",
                "name": "Prod",
                "stage": "prod",
                "url": "http://127.0.0.1:9",
                "username": "svc",
                "password_env": "SVC_PASSWORD",
            },
        ],
        secrets={"SVC_PASSWORD": fake_superset.password},
    )


@pytest.fixture
async def settings(tmp_path: Path, fake_superset: FakeSuperset) -> Settings:
    settings = make_settings(tmp_path, environments_for(tmp_path, fake_superset))
    await seed_users(settings)
    return settings
