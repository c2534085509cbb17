"""What the agent's routes share: the runtime, the caller's token, the caller's conversation,
the app's one executor (this app's API asked over HTTP as the tools ask it), and the one table
of refusals a decision meets (409 in words)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request

from sstools.agent import explain, texts
from sstools.agent.executor import ToolExecutor
from sstools.agent.run.runtime import AgentRuntime, AlreadyDecided, Busy
from sstools.agent.texts import approvals as approval_words
from sstools.http.auth import CurrentUser, request_token
from sstools.http.deps import ServicesDep
from sstools.storage.models import Conversation


def get_runtime(request: Request) -> AgentRuntime:
    runtime: AgentRuntime = request.app.state.agent
    return runtime


RuntimeDep = Annotated[AgentRuntime, Depends(get_runtime)]

# The caller's own token: the agent's tools (and a plan asked again) act with the caller's rights.
TokenDep = Annotated[str, Depends(request_token)]


async def owned_conversation(
    conversation_id: str, services: ServicesDep, user: CurrentUser
) -> Conversation:
    # A session of its own, closed at once: an event stream must not hold a connection for life.
    async with services.sessions() as session:
        conversation = await session.get(Conversation, conversation_id)
    # By the account's id: a removed and re-added username owns none of the old conversations.
    if conversation is None or conversation.owner_id != user.uid:
        raise HTTPException(404, texts.CONVERSATION_NOT_FOUND)  # someone else's looks absent too
    return conversation


ConversationDep = Annotated[Conversation, Depends(owned_conversation)]


def get_executor(request: Request) -> ToolExecutor:
    executor: ToolExecutor = request.app.state.tool_executor
    return executor


# This app's API with the caller's token, never Superset in process: the routes ask as tools do.
ExecutorDep = Annotated[ToolExecutor, Depends(get_executor)]


def conflict(exc: AlreadyDecided | Busy, *, second: bool = False) -> HTTPException:
    """A decision that cannot be taken now, as a 409 in words: the card (``second``: the request
    for a second person) was decided or expired meanwhile, or its conversation is busy."""
    if isinstance(exc, Busy):
        return HTTPException(409, explain.busy())
    if exc.expired:
        expired = approval_words.APPROVAL_CLOSED if second else texts.CONFIRMATION_DECIDED
        return HTTPException(409, expired["expired"])
    undecidable = approval_words.APPROVAL_UNDECIDABLE if second else texts.CONFIRMATION_UNDECIDABLE
    return HTTPException(409, undecidable)
