"""Assemble the agent for an app: model, executor (HTTP to the domain API), graph, runtime."""

from __future__ import annotations

from functools import partial

import httpx
from fastapi import FastAPI
from langchain_core.language_models import BaseChatModel

from sstools.agent import chat_model as model_choice
from sstools.agent.events import EventLog
from sstools.agent.executor import ToolExecutor
from sstools.agent.graph import AgentGraph
from sstools.agent.routing import tool_router
from sstools.agent.run.budget import TokenLimits
from sstools.agent.run.checkpoints import postgres_checkpoints, sqlite_checkpoints
from sstools.agent.run.locks import PostgresRunLocks, RunLocks
from sstools.agent.run.runtime import AgentRuntime
from sstools.agent.run.stream_slots import StreamSlots
from sstools.agent.run.wakeups import EventListener
from sstools.http.services import Services
from sstools.storage.advisory import is_postgres, libpq_url
from sstools.storage.db import checkpoint_pool_size

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
    router = tool_router(settings.router, settings.router_k)
    graph = AgentGraph(
        model=chat_model or model_choice.chat_model(settings, list(services.environments)),
        executor=executor,
        environments=services.environments,
        confirm_reads=settings.hitl == "all",
        router=router,
        calls_per_reply=settings.agent_calls_per_reply,
        task_starts_per_turn=settings.agent_task_starts_per_turn,
    )
    shared = is_postgres(settings.database_url)  # several workers may share the database
    conninfo = libpq_url(settings.database_url) if shared else ""
    if not shared:
        settings.checkpoints_file.parent.mkdir(parents=True, exist_ok=True)
    events = EventLog(services.sessions, notify=shared)
    runtime = AgentRuntime(
        graph=graph,
        sessions=services.sessions,
        events=events,
        checkpoints=(
            partial(
                postgres_checkpoints, conninfo, checkpoint_pool_size(settings.database_pool_size)
            )
            if shared
            else partial(sqlite_checkpoints, str(settings.checkpoints_file))
        ),
        confirmation_ttl_s=settings.confirmation_ttl_s,
        similar_allowed=services.approvals.one_person_in_dev,
        similar_ttl_s=settings.approve_similar_ttl_s,
        streams=StreamSlots(
            per_user=settings.agent_streams_per_user,
            per_conversation=settings.agent_streams_per_conversation,
        ),
        runs_per_user=settings.agent_runs_per_user,
        token_limits=TokenLimits.of(settings),
        locks=PostgresRunLocks(conninfo) if shared else RunLocks(),
        listener=EventListener(conninfo, events) if shared else None,
        on_message=router.start if router is not None else None,
    )
    return executor, runtime
