"""What the model is offered at a step of a run: the hard filters over the conversation so far,
then the router, whose wait for the message's embedding holds no thread."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from sstools.agent.context import UIContext
from sstools.agent.routing.history import recently_used, started_a_task
from sstools.agent.selection import Filtered, Router, Selection, hard_filter
from sstools.auth.roles import Role
from sstools.metrics import ROUTER_SECONDS


def before_last_reply(messages: Sequence[AnyMessage]) -> list[AnyMessage]:
    """The conversation the model's latest reply was made from."""
    last_reply = max(
        (i for i, message in enumerate(messages) if isinstance(message, AIMessage)),
        default=len(messages) - 1,
    )
    return list(messages[:last_reply])


def last_human_text(messages: Sequence[AnyMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return str(message.content)
    return ""


class ToolOffer:
    def __init__(self, router: Router | None) -> None:
        self._router = router

    def _filtered(
        self, messages: Sequence[AnyMessage], context: UIContext | None, role: Role
    ) -> Filtered:
        return hard_filter(
            role, context, following_task=started_a_task(messages), used=recently_used(messages)
        )

    def unrouted(
        self, messages: Sequence[AnyMessage], context: UIContext | None, role: Role
    ) -> Selection:
        """Everything the filters allow, whatever the message says (``show_capabilities``)."""
        return self._filtered(messages, context, role).narrowed(None)

    async def routed(
        self,
        messages: Sequence[AnyMessage],
        context: UIContext | None,
        role: Role,
        *,
        timed: bool = False,
    ) -> Selection:
        """Offered now: the embedding awaited on the loop, and only where the router ranks (a
        router that does not rank returns its candidates as they are); ``timed``: once per model
        call, in ``sstools_router_seconds``."""
        filtered, message = self._filtered(messages, context, role), last_human_text(messages)
        router = self._router
        if router is None or not router.ranks(message, filtered.to_rank):
            return filtered.narrowed(None if router is None else filtered.to_rank)
        began = time.perf_counter()
        await router.ready(message)
        routed = await asyncio.to_thread(router, message, filtered.to_rank)  # BM25 reads it all
        if timed:
            ROUTER_SECONDS.observe(time.perf_counter() - began)
        return filtered.narrowed(routed)
