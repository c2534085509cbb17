"""The harness's side of the agent API: sign in, look up objects, ask, read the SSE stream, deny.

Everything goes over HTTP exactly as the /agent page does it; nothing is imported from the
server but the models of what it sends.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from pydantic import BaseModel

from sstools.errors import SstoolsError
from sstools.evaluation.scenarios import ScenarioContext

# A model may try one write after another once denied; past this many the turn is cut short.
MAX_DENIALS_PER_TURN = 5


class ApiError(SstoolsError):
    """The API refused or failed a request the harness needed; the message says which."""


class Session(BaseModel):
    username: str
    role: str
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


class TurnEvents(BaseModel):
    """Every SSE event of one turn, denied confirmations included, and the last event id."""

    events: list[dict[str, Any]]
    cursor: int
    complete: bool  # False: the turn was cut short (too many denials)


def _check(response: httpx.Response, what: str) -> None:
    if response.is_success:
        return
    detail = response.text[:300]
    raise ApiError(f"{what}: HTTP {response.status_code} {detail}")


class AgentApi:
    def __init__(self, client: httpx.AsyncClient, *, turn_timeout_s: float) -> None:
        self._client = client
        self._turn_timeout_s = turn_timeout_s

    async def sign_in(self, username: str, password: str) -> Session:
        response = await self._client.post(
            "/api/auth/login", json={"username": username, "password": password}
        )
        _check(response, f"signing in as {username!r}")
        body = response.json()
        return Session(username=username, role=body["role"], token=body["access_token"])

    async def uicontext(
        self, session: Session, context: ScenarioContext | None
    ) -> dict[str, Any] | None:
        """The UIContext the /agent page would send; a named object gets its id looked up."""
        if context is None:
            return None
        object_id, name = context.object_id, context.object_name
        if object_id is None and name is not None and context.object_type is not None:
            object_id = await self._find_id(session, context.object_type.value, name, context)
        route = context.route
        if route is None:
            kind = context.object_type.value if context.object_type else None
            route = f"/{kind}s/{object_id}" if kind and object_id else "/settings"
        return {
            "contextVersion": 1,
            "objectType": context.object_type.value if context.object_type else None,
            "objectId": object_id,
            "objectName": name,
            "envId": context.env_id,
            "route": route,
        }

    async def _find_id(
        self, session: Session, object_type: str, name: str, context: ScenarioContext
    ) -> str:
        field = {"dashboard": "title", "dataset": "name"}.get(object_type)
        if field is None:
            raise ApiError(f"a {object_type} cannot be looked up by name; give objectId")
        response = await self._client.get(
            f"/api/{object_type}s",
            params={"env_id": context.env_id, "q": name, "page_size": 100},
            headers=session.headers,
        )
        _check(response, f"looking up {object_type} {name!r} in {context.env_id}")
        for item in response.json()["items"]:
            if item[field] == name:
                return str(item["id"])
        raise ApiError(f"no {object_type} named {name!r} in {context.env_id}")

    async def offered_tools(self, session: Session, context: dict[str, Any] | None) -> list[str]:
        params = {
            key: context[key]
            for key in ("objectType", "envId")
            if context is not None and context[key] is not None
        }
        response = await self._client.get(
            "/api/agent/tools", params=params, headers=session.headers
        )
        _check(response, "reading the offered tools")
        offered: list[str] = response.json()["offered"]
        return offered

    async def open_conversation(self, session: Session) -> str:
        response = await self._client.post("/api/agent/conversations", headers=session.headers)
        _check(response, "creating a conversation")
        conversation_id: str = response.json()["id"]
        return conversation_id

    async def close_conversation(self, session: Session, conversation_id: str) -> None:
        """Deleted, so a run against someone's server leaves no conversation behind."""
        response = await self._client.delete(
            f"/api/agent/conversations/{conversation_id}", headers=session.headers
        )
        if response.status_code not in (404, 409):  # 409: a run cut short by a timeout goes on
            _check(response, "deleting the conversation")

    async def ask(
        self,
        session: Session,
        conversation_id: str,
        text: str,
        uicontext: dict[str, Any] | None,
        cursor: int,
    ) -> TurnEvents:
        """Send one message and read its events to the end, denying every confirmation."""
        response = await self._client.post(
            f"/api/agent/conversations/{conversation_id}/messages",
            json={"text": text, "uicontext": uicontext},
            headers=session.headers,
        )
        _check(response, "sending the message")
        events: list[dict[str, Any]] = []
        for _ in range(MAX_DENIALS_PER_TURN + 1):
            read, cursor = await self._read(session, conversation_id, cursor)
            events += read
            last = read[-1]
            if last["type"] != "confirm_required":
                return TurnEvents(events=events, cursor=cursor, complete=True)
            await self._deny(session, conversation_id, last["confirmation_id"])
        return TurnEvents(events=events, cursor=cursor, complete=False)

    async def _deny(self, session: Session, conversation_id: str, confirmation_id: str) -> None:
        response = await self._client.post(
            f"/api/agent/conversations/{conversation_id}/confirmations/{confirmation_id}",
            json={"decision": "deny"},
            headers=session.headers,
        )
        _check(response, "denying the confirmation")

    async def _read(
        self, session: Session, conversation_id: str, cursor: int
    ) -> tuple[list[dict[str, Any]], int]:
        """Events after ``cursor`` up to ``done`` or ``confirm_required``."""
        events: list[dict[str, Any]] = []

        async def consume() -> int:
            position = cursor
            async with self._client.stream(
                "GET",
                f"/api/agent/conversations/{conversation_id}/events",
                params={"last_event_id": cursor},
                headers=session.headers,
            ) as stream:
                if not stream.is_success:
                    await stream.aread()
                    _check(stream, "reading the event stream")
                async for line in stream.aiter_lines():
                    if line.startswith("id:"):
                        position = max(position, int(line[3:].strip()))
                    elif line.startswith("data:"):
                        events.append(json.loads(line[5:].strip()))
                        if events[-1]["type"] in ("done", "confirm_required"):
                            return position
            raise ApiError("the event stream ended before the run did")

        try:
            position = await asyncio.wait_for(consume(), self._turn_timeout_s)
        except TimeoutError as exc:
            seen = ", ".join(event["type"] for event in events) or "nothing"
            raise ApiError(
                f"no end of the run in {self._turn_timeout_s:g} s (saw: {seen})"
            ) from exc
        return events, position
