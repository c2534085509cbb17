"""What the benches that run the app on the sandbox share: its settings in a temporary folder,
and a transport to Superset that counts the requests sent through it (what they report)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import add_user
from sstools.config import Settings
from sstools.sandbox import Sandbox, SandboxSettings
from sstools.storage.db import create_engine, migrate, session_factory


def sandbox_settings(root: Path, sandbox: Sandbox | None = None, **overrides: Any) -> Settings:
    """The app on the sandbox's three environments, its state under ``root``, with no model.

    ``sandbox``: another fleet than the one ``SSTOOLS_SANDBOX_*`` names (the peer's, bench/peer.py).
    """
    sandbox = sandbox or Sandbox(SandboxSettings())
    return Settings(
        _env_file=None,
        database_url=f"sqlite:///{root / 'sstools.db'}",
        checkpoints_file=root / "checkpoints.db",
        environments_file=sandbox.settings.environments_file.resolve(),
        git_dir=root / "git",
        backup_dir=root / "backups",
        bundle_dir=root / "bundles",
        llm_base_url=None,
        **overrides,
    )


async def bench_user(settings: Settings, role: Role) -> str:
    """A fresh database with one user of ``role`` (``bench-<role>``), and that user's token."""
    migrate(settings.database_url)
    engine = create_engine(settings.database_url)
    username = f"bench-{role.value}"
    async with session_factory(engine)() as session:
        await add_user(session, username, role, f"{username}-password")
    await engine.dispose()
    return issue_token(settings, Principal(username=username, role=role))


class CountingTransport(httpx.AsyncBaseTransport):
    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self.sent = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent += 1
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()

    def take(self) -> int:
        """The requests sent since the last take."""
        sent, self.sent = self.sent, 0
        return sent
