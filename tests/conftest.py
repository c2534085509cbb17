"""Shared fixtures: the default rig (settings on a temporary database, Superset faked at the
transport), an app client, tokens per role, PostgreSQL; and the markers a rig implies.

A folder's conftest may bring another rig under the same names (tests/agent: three faked
environments; tests/tasks: SQLite and PostgreSQL; tests/integration and tests/browser: the real
sandbox). Which rig a test needs is read from its fixtures, not its folder: a test that uses
``sandbox`` is marked ``integration``, one that uses ``postgres_server`` is marked ``postgres``.

PostgreSQL is one pair of fixtures: ``postgres_server``, the server at
``SSTOOLS_TEST_POSTGRES_URL`` probed once per session (every test that needs it is skipped with the
reason when it does not answer), and ``pg_url``, a fresh database per test on it, dropped after.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
import yaml
from hypothesis import settings as hypothesis_settings
from sqlalchemy import select
from sqlalchemy.engine import make_url

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import add_user
from sstools.config import Settings
from sstools.logs import configure_logging
from sstools.sandbox import Sandbox, SandboxSettings
from sstools.storage.db import create_engine, migrate, session_factory
from sstools.storage.models import User
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from sstools.testing.fleet import PostgresUnreachable, fresh_database, postgres_url
from tests.seal import LoopbackGuard, seal_environment

# Before any Settings is built: the shell's SSTOOLS_* must not steer the tests.
seal_environment()
_loopback_guard = LoopbackGuard()
_loopback_guard.install()

# Hypothesis checks behaviour, never speed: a busy machine or a moved clock made its 200 ms
# per-example deadline fail tests that were right (speed goals live in `make bench`).
hypothesis_settings.register_profile("sstools", deadline=None)
hypothesis_settings.load_profile("sstools")


# A fixture in a test's closure → the marker it implies (`-m 'not integration'` selects by it).
RIG_MARKERS = {"sandbox": "integration", "postgres_server": "postgres"}


# Tests known to run longest, started first so the parallel run never ends waiting on one of
# them (docs/testing.md): the API fuzz shards, then the rest of the sandbox's and PostgreSQL's.
LONGEST_FIRST = (
    "tests/integration/test_api_fuzz.py",
    "tests/integration/test_mixed_versions.py",  # brings up a fleet of its own
    "tests/integration/test_drift",
)


def _start_rank(item: pytest.Item) -> int:
    if item.nodeid.startswith(LONGEST_FIRST):
        return 0
    if item.get_closest_marker("integration"):
        return 1
    return 2 if item.get_closest_marker("postgres") else 3


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        needs = set(getattr(item, "fixturenames", ()))
        for fixture, marker in RIG_MARKERS.items():
            if fixture in needs:
                item.add_marker(marker)
    items.sort(key=_start_rank)  # stable: within a rank, the files' own order


@pytest.fixture(autouse=True)
def _only_loopback() -> Iterator[None]:
    """Fails a test that connected off the machine, even where the code swallowed the error."""
    yield
    attempts = _loopback_guard.take_attempts()
    assert not attempts, f"connections off loopback: {attempts}"


@pytest.fixture
def loopback_guard() -> LoopbackGuard:
    """The guard this session installed on ``socket.socket`` (a test taking it takes its record)."""
    return _loopback_guard


PASSWORDS = {role: f"{role.value}-test-password" for role in Role}

# As in production: JSON lines. Unconfigured structlog renders rich tracebacks, slow enough to
# stall a server's event loop on a loaded machine.
configure_logging("WARNING")


def write_environments_file(
    folder: Path, environments: list[dict[str, object]], secrets: dict[str, str] | None = None
) -> Path:
    document: dict[str, object] = {"environments": environments}
    if secrets is not None:
        (folder / "secrets.env").write_text(
            "".join(f"{key}={value}\n" for key, value in secrets.items())
        )
        document["secrets_file"] = "secrets.env"
    path = folder / "environments.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True))
    return path


def make_settings(tmp_path: Path, environments_file: Path, **overrides: object) -> Settings:
    overrides.setdefault("llm_base_url", None)  # no model endpoint unless a test brings its own
    # No drift watch unless a test schedules its own: launching DBOS for it costs each app ~1 s.
    overrides.setdefault("drift_watch_cron", "")
    return Settings(
        _env_file=None,
        database_url=f"sqlite:///{tmp_path / 'sstools.db'}",
        checkpoints_file=tmp_path / "checkpoints.db",
        environments_file=environments_file,
        git_dir=overrides.pop("git_dir", tmp_path / "git"),
        backup_dir=overrides.pop("backup_dir", tmp_path / "backups"),
        bundle_dir=overrides.pop("bundle_dir", tmp_path / "bundles"),
        **overrides,  # type: ignore[arg-type]
    )


async def _migrate_and_add_users(database_url: str) -> None:
    migrate(database_url)
    engine = create_engine(database_url)
    async with session_factory(engine)() as session:
        for role in Role:
            await add_user(session, role.value, role, PASSWORDS[role])
    await engine.dispose()


_SEEDED: list[Path] = []  # the template, once made


async def _template() -> Path:
    """A migrated SQLite database with one user per role, made once per test process: the
    product's migrations and Argon2 hashing run once here, not in every test (~0.8 s each)."""
    if not _SEEDED:
        folder = Path(tempfile.mkdtemp(prefix="sstools-seeded-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        await _migrate_and_add_users(f"sqlite:///{folder / 'template.db'}")
        _SEEDED.append(folder / "template.db")
    return _SEEDED[0]


async def seed_users(settings: Settings) -> None:
    """The app's database, migrated, with one user per role (passwords in ``PASSWORDS``)."""
    database = make_url(settings.database_url)
    if database.get_backend_name() != "sqlite" or database.database in (None, "", ":memory:"):
        await _migrate_and_add_users(settings.database_url)
        return
    target = Path(database.database)
    target.parent.mkdir(parents=True, exist_ok=True)
    # The template's last connection closed, so its write-ahead log is folded into the file.
    shutil.copyfile(await _template(), target)


SECOND_ENGINEER = "engineer2"


async def second_engineer(settings: Settings) -> dict[str, str]:
    """Headers of a second engineer, made once per database with one password, so tests sharing
    a database (tests/integration's session one) never revoke each other's tokens by re-making
    the account; the token carries the account's current version."""
    engine = create_engine(settings.database_url)
    async with session_factory(engine)() as session:
        user = await session.scalar(select(User).where(User.username == SECOND_ENGINEER))
        if user is None:
            await add_user(session, SECOND_ENGINEER, Role.engineer, "engineer2-test-password")
            user = await session.scalar(select(User).where(User.username == SECOND_ENGINEER))
        assert user is not None
        version = user.token_version
    await engine.dispose()
    principal = Principal(username=SECOND_ENGINEER, role=Role.engineer)
    return {"Authorization": f"Bearer {issue_token(settings, principal, version=version)}"}


@pytest.fixture
def token_for(settings: Settings) -> Callable[[Role], str]:
    def make(role: Role) -> str:
        return issue_token(settings, Principal(username=role.value, role=role))

    return make


@pytest.fixture
def auth(token_for: Callable[[Role], str]) -> Callable[[Role], dict[str, str]]:
    def make(role: Role) -> dict[str, str]:
        return {"Authorization": f"Bearer {token_for(role)}"}

    return make


@asynccontextmanager
async def app_client(
    settings: Settings,
    transport: httpx.AsyncBaseTransport | None = None,
    *,
    raise_app_exceptions: bool = True,
) -> AsyncIterator[httpx.AsyncClient]:
    """``async with app_client(settings) as client``: the app's lifespan around an ASGI client.
    A context manager, so a failing test still stops the app (its task engine and schedules)
    at once, not when an abandoned generator is collected. ``raise_app_exceptions=False``: an
    unhandled error is answered as a browser would see it (a 500), not raised in the test."""
    app = create_app(settings, superset_transport=transport)
    asgi = httpx.ASGITransport(app=app, raise_app_exceptions=raise_app_exceptions)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=asgi, base_url="http://sstools.test") as client,
    ):
        yield client


AuthHeaders = Callable[[Role], dict[str, str]]


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
    """The default rig: ``ss-dev`` on the faked Superset, ``prod`` unreachable, SQLite."""
    settings = make_settings(tmp_path, environments_for(tmp_path, fake_superset))
    await seed_users(settings)
    return settings


def worker_fleet(worker: str | None) -> SandboxSettings:
    """The sandbox fleet of a test process: the default one, or for xdist's worker ``gwN``
    (N > 0) a fleet of its own ten ports further on, so workers never change each other's
    Superset (tests stop staging, deploy into prod and put it back)."""
    index = int(worker.removeprefix("gw")) if worker else 0
    # Another checkout testing on this machine at once takes other ports (…_BASE_PORT=9081).
    base_port = int(os.environ.get("SSTOOLS_TEST_SANDBOX_BASE_PORT", SandboxSettings().base_port))
    if index == 0:
        return SandboxSettings(base_port=base_port)
    return SandboxSettings(fleet=worker, base_port=base_port + 10 * index)


def brought_up(fleet: Sandbox, label: str) -> Iterator[Sandbox]:
    """``fleet`` up for as long as it is used; stopped after only if it was not running before."""
    already_running = all(status.healthy for status in fleet.status())
    fleet.up(progress=lambda line: print(f"[{label}] {line}", file=sys.stderr))
    yield fleet
    if not already_running:
        fleet.down()


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    """The three real Superset instances; stopped at the end only if this session started them."""
    yield from brought_up(Sandbox(worker_fleet(os.environ.get("PYTEST_XDIST_WORKER"))), "sandbox")


@pytest.fixture
async def client(
    settings: Settings, fake_superset: FakeSuperset
) -> AsyncIterator[httpx.AsyncClient]:
    """The app in process, its Superset faked at the transport (integration overrides this)."""
    async with app_client(settings, RoutingTransport(fake_superset)) as client:
        yield client


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """The admin URL of the PostgreSQL server at ``SSTOOLS_TEST_POSTGRES_URL``.

    Probed once per session by making (and dropping) a database, which is what the tests need;
    where that fails, every test asking for the server is skipped with the same reason.
    """
    try:
        with fresh_database("sstools_probe"):
            pass
    except PostgresUnreachable as exc:
        pytest.skip(str(exc))
    return postgres_url()


@pytest.fixture
def pg_url(postgres_server: str) -> Iterator[str]:
    """A fresh, empty database on ``postgres_server`` for this test alone; dropped after."""
    with fresh_database("sstools_test") as url:
        yield url
