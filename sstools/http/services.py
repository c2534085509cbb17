"""What the app holds for its lifetime: settings, storage, environments, Superset clients."""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from sstools.approval_policy import ApprovalPolicy
from sstools.config import Settings
from sstools.environments import EnvironmentRegistry, load_environments
from sstools.git_store import GitStore
from sstools.storage.db import create_engine, session_factory
from sstools.superset import SupersetPool
from sstools.tasks import TaskEngine


@dataclass
class Services:
    settings: Settings
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    environments: EnvironmentRegistry
    superset: SupersetPool
    git: GitStore
    tasks: TaskEngine
    approvals: ApprovalPolicy  # how many people approve a write, by stage

    @classmethod
    def start(
        cls, settings: Settings, *, superset_transport: httpx.AsyncBaseTransport | None = None
    ) -> Services:
        """Load the environments (raising ConfigError on a bad file) and open storage."""
        environments = load_environments(settings.environments_file)
        engine = create_engine(settings.database_url, pool_size=settings.database_pool_size)
        sessions = session_factory(engine)
        return cls(
            settings=settings,
            engine=engine,
            sessions=sessions,
            environments=environments,
            superset=SupersetPool(
                environments, timeout_s=settings.superset_timeout_s, transport=superset_transport
            ),
            git=GitStore.from_settings(settings),
            tasks=TaskEngine(settings, sessions, environments),
            approvals=ApprovalPolicy.from_settings(settings),
        )

    async def aclose(self) -> None:
        await self.tasks.aclose()
        await self.superset.aclose()
        await self.engine.dispose()
