"""Read a live server's agent stream. The harness (scripted model, live server) is sstools.testing.

- :func:`read_events`: an SSE client that stops at ``done`` or ``confirm_required``.
- :func:`read_events_sync`: its blocking twin, for hypothesis tests.
- :func:`start_conversation` and :func:`ask`: a new conversation with one message sent in it
  (and, for ``ask``, its events).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
from pydantic import TypeAdapter

from sstools.agent.events import AgentEvent

# Every event a test reads must be one of the schema's, with no field the schema lacks.
WIRE_EVENT: TypeAdapter[AgentEvent] = TypeAdapter(AgentEvent)


def done_or_card(event: dict[str, Any]) -> bool:
    """Where a read of the stream stops unless told otherwise: the run's end or a card."""
    return bool(event["type"] in ("done", "confirm_required"))


async def read_events(
    client: httpx.AsyncClient,
    conversation_id: str,
    headers: dict[str, str],
    *,
    last_event_id: int | None = None,
    until: Callable[[dict[str, Any]], bool] = done_or_card,
    timeout_s: float = 20.0,
) -> list[dict[str, Any]]:
    """Events from the SSE stream (each with its ``_id``) up to and including ``until``."""
    request_headers = dict(headers)
    if last_event_id is not None:
        request_headers["Last-Event-ID"] = str(last_event_id)
    events: list[dict[str, Any]] = []

    async def consume() -> None:
        async with client.stream(
            "GET", f"/api/agent/conversations/{conversation_id}/events", headers=request_headers
        ) as response:
            assert response.status_code == 200, await response.aread()
            event_id = None
            async for line in response.aiter_lines():
                if line.startswith("id:"):
                    event_id = int(line[3:].strip())
                elif line.startswith("data:"):
                    event = json.loads(line[5:].strip())
                    known = WIRE_EVENT.validate_python(event).model_dump()
                    assert set(event) <= set(known), (event, "has fields the schema lacks")
                    event["_id"] = event_id
                    events.append(event)
                    if until(event):
                        return

    await asyncio.wait_for(consume(), timeout_s)
    return events


async def start_conversation(
    client: httpx.AsyncClient, headers: dict[str, str], text: str, uicontext: dict[str, Any] | None
) -> str:
    """A new conversation of ``headers``' person, ``text`` sent in it from ``uicontext``: its id."""
    cid: str = (await client.post("/api/agent/conversations", headers=headers)).json()["id"]
    await client.post(
        f"/api/agent/conversations/{cid}/messages",
        headers=headers,
        json={"text": text, "uicontext": uicontext},
    )
    return cid


async def ask(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    text: str,
    uicontext: dict[str, Any] | None,
    *,
    timeout_s: float = 20.0,
) -> list[dict[str, Any]]:
    """:func:`start_conversation`, then its events up to ``done`` or a card."""
    cid = await start_conversation(client, headers, text, uicontext)
    return await read_events(client, cid, headers, timeout_s=timeout_s)


def types(events: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in events]


def read_events_sync(
    client: httpx.Client,
    conversation_id: str,
    headers: dict[str, str],
    *,
    until: Callable[[dict[str, Any]], bool] = done_or_card,
) -> list[dict[str, Any]]:
    """The blocking twin of :func:`read_events`, for hypothesis tests (which are synchronous)."""
    events: list[dict[str, Any]] = []
    with client.stream(
        "GET", f"/api/agent/conversations/{conversation_id}/events", headers=headers, timeout=20
    ) as response:
        for line in response.iter_lines():
            if line.startswith("data:"):
                events.append(json.loads(line[5:].strip()))
                if until(events[-1]):
                    break
    return events
