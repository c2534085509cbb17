"""Assemble the agent for an app: model, executor (HTTP to the domain API), graph, runtime."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from langchain_core.language_models import BaseChatModel

from sstools.agent.events import EventLog
from sstools.agent.executor import ToolExecutor
from sstools.agent.graph import AgentGraph
from sstools.agent.llm import chat_model as configured_model
from sstools.agent.runtime import AgentRuntime
from sstools.agent.streams import StreamSlots
from sstools.services import Services

# With no SSTOOLS_TOOLS_BASE_URL the tools call this very app, in process, over ASGI.
_IN_PROCESS = "http://sstools.internal"


def build_agent(
    app: FastAPI, services: Services, *, chat_model: BaseChatModel | None = None
) -> tuple[ToolExecutor, AgentRuntime]:
    settings = services.settings
    transport = None if settings.tools_base_url else httpx.ASGITransport(app=app)
    executor = ToolExecutor(
        base_url=settings.tools_base_url or _IN_PROCESS,
        transport=transport,
        timeout_s=settings.tool_timeout_s,
        retry_wait_s=settings.tool_retry_wait_s,
        sessions=services.sessions,
    )
    graph = AgentGraph(
        model=chat_model or configured_model(settings, list(services.environments)),
        executor=executor,
        environments=services.environments,
        confirm_reads=settings.hitl == "all",
    )
    settings.checkpoints_file.parent.mkdir(parents=True, exist_ok=True)
    runtime = AgentRuntime(
        graph=graph,
        sessions=services.sessions,
        events=EventLog(services.sessions),
        checkpoints_file=str(settings.checkpoints_file),
        confirmation_ttl_s=settings.confirmation_ttl_s,
        streams=StreamSlots(
            per_user=settings.agent_streams_per_user,
            per_conversation=settings.agent_streams_per_conversation,
        ),
        runs_per_user=settings.agent_runs_per_user,
    )
    return executor, runtime
