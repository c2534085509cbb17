"""Agent fixtures: an app with a scripted model, served live; conversations per user."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing import LiveServer, Script, ScriptedChatModel
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.conftest import AuthHeaders, make_settings, seed_users, write_environments_file


@pytest.fixture
def fake_superset() -> FakeSuperset:
    return FakeSuperset(
        dashboards=[
            {"id": i, "dashboard_title": f"Дашборд {i}", "published": True} for i in range(1, 8)
        ]
    )


@pytest.fixture
async def settings(tmp_path: Path, fake_superset: FakeSuperset) -> Settings:
    env_file = write_environments_file(
        tmp_path,
        [
            {
                "id": stage_id,
                "name": name,
                "stage": stage,
                "url": "http://superset.test",
                "username": fake_superset.username,
                "password_env": "SVC_PASSWORD",
            }
            for stage_id, name, stage in (
                ("ss-dev", "Dev", "dev"),
                ("staging", "Staging", "staging"),
                ("prod", "Prod", "prod"),
            )
        ],
        secrets={"SVC_PASSWORD": fake_superset.password},
    )
    settings = make_settings(tmp_path, env_file, tool_timeout_s=5.0, tool_retry_wait_s=1.0)
    await seed_users(settings)
    return settings


@dataclass
class Agent:
    """A live app with a scripted model, and helpers to talk to it as a given role."""

    model: ScriptedChatModel
    client: httpx.AsyncClient
    auth: AuthHeaders
    url: str
    app: Any

    async def conversation(self, role: Role = Role.engineer) -> str:
        response = await self.client.post("/api/agent/conversations", headers=self.auth(role))
        assert response.status_code == 201
        conversation_id: str = response.json()["id"]
        return conversation_id

    async def send(
        self,
        conversation_id: str,
        text: str,
        uicontext: dict[str, Any] | None,
        role: Role = Role.engineer,
    ) -> httpx.Response:
        return await self.client.post(
            f"/api/agent/conversations/{conversation_id}/messages",
            json={"text": text, "uicontext": uicontext},
            headers=self.auth(role),
        )

    async def decide(
        self, conversation_id: str, confirmation_id: str, decision: str, role: Role = Role.engineer
    ) -> httpx.Response:
        return await self.client.post(
            f"/api/agent/conversations/{conversation_id}/confirmations/{confirmation_id}",
            json={"decision": decision},
            headers=self.auth(role),
        )


def dashboard_context(object_id: str = "10", env_id: str = "ss-dev") -> dict[str, Any]:
    return {
        "contextVersion": 1,
        "objectType": "dashboard",
        "objectId": object_id,
        "objectName": "Отчёт по энергопотреблению",
        "envId": env_id,
        "route": f"/dashboards/{object_id}",
    }


def dataset_context(object_id: str = "15", env_id: str = "staging") -> dict[str, Any]:
    return {
        "contextVersion": 1,
        "objectType": "dataset",
        "objectId": object_id,
        "objectName": "energy_consumption",
        "envId": env_id,
        "route": f"/datasets/{object_id}",
    }


AgentFactory = Callable[[Script], Any]


@pytest.fixture
def make_agent(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> Callable[..., Any]:
    """``async with make_agent(script) as agent``: a live app answering with ``script``."""
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def factory(script: Script, **overrides: Any) -> AsyncIterator[Agent]:
        model = ScriptedChatModel(script=script)
        app_settings = settings.model_copy(update=overrides)
        app = create_app(
            app_settings, superset_transport=RoutingTransport(fake_superset), chat_model=model
        )
        with LiveServer(app) as server:
            async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
                yield Agent(model=model, client=client, auth=auth, url=server.url, app=app)

    return factory


def ai(text: str) -> AIMessage:
    return AIMessage(content=text)
