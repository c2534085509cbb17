"""Deleting a conversation: everything of it goes, nobody else's, never mid-run; the cap frees."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from sqlalchemy import func, select

from sstools.agent import texts
from sstools.auth.roles import Role
from sstools.storage.models import (
    AuditEntry,
    Confirmation,
    ConversationEvent,
    ConversationMessage,
)
from sstools.testing import answer, call_tool
from tests.agent.conftest import dataset_context
from tests.support import read_events


def _checkpoints(path: Path, conversation_id: str) -> int:
    with closing(sqlite3.connect(path)) as database:
        query = "select count(*) from checkpoints where thread_id = ?"
        return int(database.execute(query, (conversation_id,)).fetchone()[0])


async def _paused(agent: Any, conversation_id: str) -> None:
    """Until the run that asked has let go of the conversation (it saves its checkpoint last)."""
    for _ in range(100):
        shown = await agent.client.get(
            f"/api/agent/conversations/{conversation_id}", headers=agent.auth(Role.engineer)
        )
        if not shown.json()["running"]:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the run never paused on its card")


async def _rows(app: Any, conversation_id: str) -> dict[str, int]:
    async with app.state.services.sessions() as session:
        return {
            table.__name__: await session.scalar(
                select(func.count())
                .select_from(table)
                .where(table.conversation_id == conversation_id)
            )
            for table in (ConversationMessage, ConversationEvent, Confirmation)
        }


async def test_a_deleted_conversation_is_gone_with_its_card_and_checkpoints(
    make_agent: Any,
) -> None:
    write = call_tool("superset_execute_sql", {"sql": "delete from t", "database_id": 1})
    async with make_agent(write) as agent:
        cid, events = await agent.ask("удали строки", dataset_context())
        assert events[-1]["type"] == "confirm_required"
        assert await _rows(agent.app, cid) == {
            "ConversationMessage": 1,
            "ConversationEvent": len(events),
            "Confirmation": 1,
        }
        # Read from the file, not through the saver: the server's own loop holds its lock.
        checkpoints = agent.app.state.services.settings.checkpoints_file
        assert _checkpoints(checkpoints, cid) > 0
        await _paused(agent, cid)  # the card is out; the run lets the conversation go next

        stranger = await agent.client.delete(
            f"/api/agent/conversations/{cid}", headers=agent.auth(Role.admin)
        )
        deleted = await agent.client.delete(
            f"/api/agent/conversations/{cid}", headers=agent.auth(Role.engineer)
        )
        after = await agent.client.get(
            f"/api/agent/conversations/{cid}", headers=agent.auth(Role.engineer)
        )
        decided = await agent.decide(cid, events[-1]["confirmation_id"], "approve")

        assert stranger.status_code == 404  # someone else's looks absent
        assert deleted.status_code == 204
        assert after.status_code == 404
        assert decided.status_code == 404  # the card went with it: the write can never run
        assert await _rows(agent.app, cid) == {
            "ConversationMessage": 0,
            "ConversationEvent": 0,
            "Confirmation": 0,
        }
        assert _checkpoints(checkpoints, cid) == 0
        async with agent.app.state.services.sessions() as session:
            audited = await session.scalars(
                select(AuditEntry).where(AuditEntry.action == "conversation_deleted")
            )
            assert [(e.username, e.detail["conversation_id"]) for e in audited] == [
                ("engineer", cid)
            ]


async def test_a_conversation_cannot_be_deleted_while_the_agent_answers(make_agent: Any) -> None:
    release = threading.Event()

    def slow(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        release.wait(timeout=10)  # LangChain runs this in its executor thread
        return AIMessage(content="готово")

    async with make_agent(slow) as agent:
        cid = await agent.conversation(Role.engineer)
        await agent.send(cid, "привет", None)
        refused = await agent.client.delete(
            f"/api/agent/conversations/{cid}", headers=agent.auth(Role.engineer)
        )
        release.set()
        events = await read_events(agent.client, cid, agent.auth(Role.engineer))
        deleted = await agent.client.delete(
            f"/api/agent/conversations/{cid}", headers=agent.auth(Role.engineer)
        )
    assert refused.status_code == 409
    assert refused.json()["detail"] == texts.CONVERSATION_BUSY
    assert events[-1]["type"] == "done"  # the run was not disturbed
    assert deleted.status_code == 204


async def test_deleting_one_frees_a_place_under_the_conversation_cap(make_agent: Any) -> None:
    async with make_agent(answer("ок"), agent_conversations_per_user=1) as agent:
        first = await agent.conversation(Role.analyst)
        refused = await agent.client.post(
            "/api/agent/conversations", headers=agent.auth(Role.analyst)
        )
        await agent.client.delete(
            f"/api/agent/conversations/{first}", headers=agent.auth(Role.analyst)
        )
        again = await agent.client.post(
            "/api/agent/conversations", headers=agent.auth(Role.analyst)
        )
    assert (refused.status_code, again.status_code) == (409, 201)
