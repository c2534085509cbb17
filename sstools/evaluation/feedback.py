"""``sstools eval --from-feedback``: the answers people rated 👎 in the chat, as eval scenarios.

Each scenario asks what the person asked, from the page they asked it on, as the role they had
when they rated it, after their earlier messages of that conversation; under ``feedback`` it
keeps the answer they got and their comment (the note). What a right answer does is for a person
to write: ``expect.todo`` says so, and ``sstools eval`` skips the scenario until that line is
deleted. Secrets in what is written (a password in a message, a token in a URL) are masked as
everywhere else (:mod:`sstools.redaction`).
"""

from __future__ import annotations

from typing import Any

import yaml
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.evaluation.scenarios import (
    Expectation,
    FeedbackNote,
    Scenario,
    ScenarioContext,
    ScenarioFile,
    Turn,
)
from sstools.redaction import redact, redact_text
from sstools.storage.db import command_session
from sstools.storage.feedback import Asked, RatedTurn, Rating, rated_turns

KIND = "feedback"
TODO = (
    "FILL IN what a right answer does (tools, forbidden_tools, confirmation, answer_contains, "
    "answer_excludes), then delete this line"
)
HEADER = """\
# Eval scenarios from the answers people rated 👎 in the chat (`sstools eval --from-feedback`).
# Each asks what the person asked, from the page they asked it on, as their role; `feedback`
# keeps the answer they got and their comment (`note`). Its `expect` is for a person to fill
# in: say what a right answer does, then delete the `todo` line. Until then `sstools eval`
# skips the scenario (SKIP, not counted in the accuracy).
"""
_MAX_MESSAGE = 4000  # a scenario's message, as the chat takes it


async def read_rated_down(settings: Settings) -> list[RatedTurn]:
    """The 👎 turns in the configured database (migrated first, as every command does)."""
    async with command_session(settings.database_url) as session:
        return await rated_down(session)


async def rated_down(session: AsyncSession) -> list[RatedTurn]:
    return await rated_turns(session, Rating.down)


def _context(uicontext: dict[str, Any] | None) -> ScenarioContext | None:
    """The page as a scenario names it; an object the page could not name (not in that
    environment) is left out, the environment and route kept."""
    if uicontext is None:
        return None
    fields = ("objectType", "objectId", "objectName", "envId", "route")
    kept = {key: value for key, value in redact(uicontext).items() if key in fields}
    try:
        return ScenarioContext.model_validate(kept)
    except ValidationError:
        return ScenarioContext.model_validate(
            {key: kept[key] for key in ("envId", "route") if key in kept}
        )


def _text(text: str) -> str:
    return redact_text(text)[:_MAX_MESSAGE]


def _turn(asked: Asked) -> Turn:
    return Turn(message=_text(asked.text), context=_context(asked.uicontext))


def scenario_of(turn: RatedTurn) -> Scenario | None:
    """The scenario of one rated turn; None for an answer no message of the person's asked."""
    if turn.asked is None:
        return None
    comment = turn.given.comment
    return Scenario(
        id=f"feedback-{turn.message_id}",
        kind=KIND,
        source=f"answer {turn.message_id} in conversation {turn.conversation_id}",
        role=Role(turn.role),
        context=_context(turn.asked.uicontext),
        earlier=[_turn(asked) for asked in turn.earlier],
        message=_text(turn.asked.text),
        expect=Expectation(todo=TODO),
        feedback=FeedbackNote(
            answer=redact_text(turn.answer),
            note=redact_text(comment) if comment else None,
            rated_by=turn.username,
            rated_at=turn.given.at.isoformat(),
        ),
    )


def feedback_scenarios(turns: list[RatedTurn]) -> list[Scenario]:
    return [scenario for turn in turns if (scenario := scenario_of(turn)) is not None]


class _Dumper(yaml.SafeDumper):
    """Text over several lines (an answer in markdown) as a block a person reads as it was."""


def _text_block(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text_block)


def render(scenarios: list[Scenario]) -> str:
    """A scenario file (YAML) with a header saying what is to be filled in."""
    data = ScenarioFile(scenarios=scenarios).model_dump(
        mode="json", by_alias=True, exclude_defaults=True
    )
    body = yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100)
    return HEADER + body
