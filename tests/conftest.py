"""Shared fixtures: settings on a temporary database, an app client, tokens per role."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import add_user
from sstools.config import Settings
from sstools.logs import configure_logging
from sstools.sandbox import Sandbox, SandboxSettings
from sstools.storage.db import create_engine, migrate, session_factory
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.seal import LoopbackGuard, seal_environment

# Before any Settings is built: the shell's SSTOOLS_* must not steer the tests.
seal_environment()
_loopback_guard = LoopbackGuard()
_loopback_guard.install()


@pytest.fixture(autouse=True)
def _only_loopback() -> Iterator[None]:
    """Fails a test that connected off the machine, even where the code swallowed the error."""
    yield
    attempts = _loopback_guard.take_attempts()
    assert not attempts, f"connections off loopback: {attempts}"


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


async def seed_users(settings: Settings) -> None:
    migrate(settings.database_url)
    engine = create_engine(settings.database_url)
    async with session_factory(engine)() as session:
        for role in Role:
            await add_user(session, role.value, role, PASSWORDS[role])
    await engine.dispose()


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


async def app_client(
    settings: Settings, transport: httpx.AsyncBaseTransport | None = None
) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, superset_transport=transport)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://sstools.test"
        ) as client,
    ):
        yield client


AuthHeaders = Callable[[Role], dict[str, str]]


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    """The three real Superset instances; stopped at the end only if this session started them."""
    fleet = Sandbox(SandboxSettings())
    already_running = all(status.healthy for status in fleet.status())
    fleet.up(progress=lambda line: print(f"[sandbox] {line}", file=sys.stderr))
    yield fleet
    if not already_running:
        fleet.down()


@pytest.fixture
async def client(
    settings: Settings, fake_superset: FakeSuperset
) -> AsyncIterator[httpx.AsyncClient]:
    """The app in process, its Superset faked at the transport (integration overrides this)."""
    async for client in app_client(settings, RoutingTransport(fake_superset)):
        yield client
