"""👍 / 👎 on the agent's answers (issue 39 §4): stored with the turn, shown again by the
history, only the owner's, only on answers; `sstools eval --from-feedback` makes the 👎 turns
into scenarios the eval loader accepts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from sstools.agent import texts
from sstools.auth.roles import Role
from sstools.cli import app as cli_app
from sstools.evaluation.feedback import TODO
from sstools.evaluation.report import Status
from sstools.evaluation.runner import Runner
from sstools.evaluation.scenarios import load_scenarios
from sstools.storage.models import AnswerFeedback, AuditEntry
from sstools.testing import answer
from tests.agent.conftest import Agent, dashboard_context, dataset_context


def _feedback_url(conversation_id: str, message_id: int) -> str:
    return f"/api/agent/conversations/{conversation_id}/messages/{message_id}/feedback"


async def _history(agent: Agent, conversation_id: str, role: Role = Role.engineer) -> Any:
    shown = await agent.client.get(
        f"/api/agent/conversations/{conversation_id}", headers=agent.auth(role)
    )
    assert shown.status_code == 200
    return shown.json()["messages"]


async def _asked(agent: Agent, text: str, context: dict[str, Any] | None) -> tuple[str, int, int]:
    """A conversation of the engineer's with ``text`` answered: (its id, the person's message
    id, the answer's message id)."""
    conversation_id, events = await agent.ask(text, context)
    assert events[-1]["type"] == "done"
    user, assistant = await _history(agent, conversation_id)
    assert (user["role"], assistant["role"]) == ("user", "assistant")
    return conversation_id, user["id"], assistant["id"]


async def _rate(
    agent: Agent, conversation_id: str, message_id: int, body: dict[str, Any], role: Role
) -> Any:
    return await agent.client.put(
        _feedback_url(conversation_id, message_id), json=body, headers=agent.auth(role)
    )


async def _stored(agent: Agent) -> list[tuple[int, str, str, str | None]]:
    async with agent.app.state.services.sessions() as session:
        rows = await session.scalars(select(AnswerFeedback).order_by(AnswerFeedback.message_id))
        return [(row.message_id, row.username, row.rating, row.comment) for row in rows]


async def test_a_rating_is_stored_with_the_answer_and_the_history_shows_it(
    make_agent: Any,
) -> None:
    async with make_agent(answer("В staging нет этого дашборда.")) as agent:
        cid, _, answer_id = await _asked(agent, "есть ли он в staging?", dashboard_context())

        up = await _rate(agent, cid, answer_id, {"rating": "up"}, Role.engineer)
        down = await _rate(
            agent,
            cid,
            answer_id,
            {"rating": "down", "comment": "  Он там есть, под другим именем  "},
            Role.engineer,
        )
        history = await _history(agent, cid)  # what a reload of the page reads

        assert up.status_code == 200
        assert up.json()["rating"] == "up"
        assert down.status_code == 200
        # The second click replaced the first: one rating per person per answer.
        assert await _stored(agent) == [
            (answer_id, "engineer", "down", "Он там есть, под другим именем")
        ]
        assert history[0]["feedback"] is None  # the person's own message carries none
        assert history[1]["feedback"]["rating"] == "down"
        assert history[1]["feedback"]["comment"] == "Он там есть, под другим именем"
        async with agent.app.state.services.sessions() as session:
            audited = await session.scalars(
                select(AuditEntry)
                .where(AuditEntry.action == "answer_rated")
                .order_by(AuditEntry.id)
            )
            assert [(e.username, e.outcome, e.detail["message_id"]) for e in audited] == [
                ("engineer", "up", answer_id),
                ("engineer", "down", answer_id),
            ]


async def test_only_the_owner_rates_and_only_an_answer(make_agent: Any) -> None:
    async with make_agent(answer("Готово.")) as agent:
        cid, user_message_id, answer_id = await _asked(agent, "привет", None)
        other_cid, _, other_answer_id = await _asked(agent, "и ещё раз", None)

        stranger = await _rate(agent, cid, answer_id, {"rating": "down"}, Role.admin)
        own_message = await _rate(agent, cid, user_message_id, {"rating": "down"}, Role.engineer)
        elsewhere = await _rate(agent, cid, other_answer_id, {"rating": "up"}, Role.engineer)
        too_long = await _rate(
            agent, cid, answer_id, {"rating": "down", "comment": "я" * 1001}, Role.engineer
        )
        no_such_rating = await _rate(agent, cid, answer_id, {"rating": "meh"}, Role.engineer)
        no_such_id = await _rate(agent, cid, 2**31, {"rating": "up"}, Role.engineer)

        assert stranger.status_code == 404  # someone else's conversation looks absent
        assert stranger.json()["detail"] == texts.CONVERSATION_NOT_FOUND
        assert own_message.status_code == 422
        assert own_message.json()["detail"] == [
            {"type": "value_error", "loc": ["path", "message_id"], "msg": texts.ONLY_ANSWERS_RATED}
        ]
        assert elsewhere.status_code == 404  # an answer of another conversation, not this one's
        assert elsewhere.json()["detail"] == texts.ANSWER_NOT_FOUND
        assert too_long.status_code == 422
        assert too_long.json()["detail"][0]["loc"] == ["body", "comment"]
        assert no_such_rating.status_code == 422
        assert no_such_rating.json()["detail"][0]["loc"] == ["body", "rating"]
        assert no_such_id.status_code == 422
        assert no_such_id.json()["detail"][0]["loc"] == ["path", "message_id"]
        assert await _stored(agent) == []
        assert other_cid != cid


async def test_a_forgotten_conversation_takes_its_ratings_along(make_agent: Any) -> None:
    async with make_agent(answer("Готово.")) as agent:
        cid, _, answer_id = await _asked(agent, "привет", None)
        assert (await _rate(agent, cid, answer_id, {"rating": "down"}, Role.engineer)).is_success
        await agent.idle(cid)
        deleted = await agent.client.delete(
            f"/api/agent/conversations/{cid}", headers=agent.auth(Role.engineer)
        )
        assert deleted.status_code == 204
        assert await _stored(agent) == []


def _from_feedback(output: Path) -> Any:
    return CliRunner().invoke(cli_app, ["eval", "--from-feedback", "--output", str(output)])


async def test_eval_from_feedback_writes_exactly_the_thumbs_down_turns_as_scenarios(
    make_agent: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with make_agent(answer("Ошибок нет, всё в порядке.")) as agent:
        # One conversation of two turns, the second rated 👎 with a comment: the scenario asks
        # after the first (a follow-up needs its lead-in).
        first_cid, said = await agent.ask("как дела у этого дашборда?", dashboard_context())
        await agent.idle(first_cid)
        await agent.send(
            first_cid, "а ошибки в логах? пароль ?password=hunter2-secret", dashboard_context()
        )
        await agent.events_after(first_cid, said[-1])
        first_answers = [m for m in await _history(agent, first_cid) if m["role"] == "assistant"]
        assert len(first_answers) == 2
        liked_cid, _, liked = await _asked(agent, "сколько строк?", dataset_context())
        silent_cid, _, _ = await _asked(agent, "что нового?", None)
        disliked_cid, _, disliked = await _asked(agent, "кто выкатывал?", None)
        for cid, message_id, body in (
            (first_cid, first_answers[1]["id"], {"rating": "down", "comment": "Ошибки есть: 3"}),
            (liked_cid, liked, {"rating": "up"}),
            (disliked_cid, disliked, {"rating": "down"}),
        ):
            assert (await _rate(agent, cid, message_id, body, Role.engineer)).is_success
        database_url = agent.app.state.services.settings.database_url

    monkeypatch.setenv("SSTOOLS_DATABASE_URL", database_url)
    written = tmp_path / "from-feedback.yaml"
    result = await asyncio.to_thread(_from_feedback, written)

    assert result.exit_code == 0, result.output
    scenarios = load_scenarios(written).scenarios  # the eval loader takes the file as it is
    assert [s.id for s in scenarios] == [
        f"feedback-{first_answers[1]['id']}",
        f"feedback-{disliked}",
    ]
    follow_up, plain = scenarios
    assert {s.kind for s in scenarios} == {"feedback"}
    assert follow_up.role is Role.engineer
    assert follow_up.message == "а ошибки в логах? пароль ?password=••••••"
    assert "hunter2" not in written.read_text("utf-8")
    assert [turn.message for turn in follow_up.earlier] == ["как дела у этого дашборда?"]
    assert follow_up.context is not None
    assert follow_up.context.model_dump(by_alias=True, exclude_none=True) == {
        "objectType": "dashboard",
        "objectId": "10",
        "envId": "ss-dev",
        "route": "/dashboards/10",
    }
    assert follow_up.feedback is not None
    assert follow_up.feedback.answer.startswith("Ошибок нет, всё в порядке.")  # as it was shown
    assert follow_up.feedback.note == "Ошибки есть: 3"
    assert follow_up.feedback.rated_by == "engineer"
    assert plain.message == "кто выкатывал?"
    assert plain.context is None
    assert plain.earlier == []
    assert plain.feedback is not None
    assert plain.feedback.note is None
    # What a right answer is, is for a person to say: marked, and not graded until then.
    assert {s.expect.todo for s in scenarios} == {TODO}
    assert "todo: FILL IN" in written.read_text("utf-8")
    skipped = await Runner(api=None, credentials={}).run(plain)  # type: ignore[arg-type]
    assert skipped.status is Status.skipped
    assert skipped.reasons == [f"expectation not filled in yet: {TODO}"]
    assert silent_cid not in written.read_text("utf-8")
