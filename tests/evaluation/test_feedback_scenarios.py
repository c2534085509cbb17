"""`sstools eval --from-feedback`'s scenarios: what a 👎 turn becomes, and the options it takes
(the whole way from the chat to the file: tests/agent/test_answer_feedback.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from sstools.cli import app as cli_app
from sstools.evaluation.feedback import TODO, render, scenario_of
from sstools.evaluation.scenarios import parse_scenarios
from sstools.storage.feedback import Asked, Given, RatedTurn, Rating

AT = datetime(2030, 1, 2, 3, 4, tzinfo=UTC)


def _turn(asked: Asked | None, comment: str | None = None) -> RatedTurn:
    return RatedTurn(
        message_id=7,
        conversation_id="c_x",
        username="alice",
        role="analyst",
        answer="Всё хорошо.\nСовсем всё.",
        asked=asked,
        earlier=[],
        given=Given(rating=Rating.down, comment=comment, at=AT),
    )


def test_a_page_that_could_not_name_its_object_keeps_its_environment_and_route() -> None:
    # The dashboard is not in prod: the page sent its type with neither id nor name.
    page = {"contextVersion": 1, "objectType": "dashboard", "objectId": None,
            "objectName": None, "envId": "prod", "route": "/dashboards/10"}  # fmt: skip
    scenario = scenario_of(
        _turn(Asked(text="есть он тут?", uicontext=page), "Bearer abcdef0123456789")
    )

    assert scenario is not None
    assert scenario.context is not None
    assert scenario.context.model_dump(by_alias=True, exclude_none=True) == {
        "envId": "prod",
        "route": "/dashboards/10",
    }
    assert scenario.feedback is not None
    assert scenario.feedback.note == "Bearer ••••••"  # a credential in a comment is masked
    text = render([scenario])
    reread = parse_scenarios(text, "from-feedback.yaml").scenarios  # the loader takes it
    assert reread == [scenario]
    assert reread[0].expect.todo == TODO


def test_an_answer_nobody_asked_for_makes_no_scenario() -> None:
    assert scenario_of(_turn(None)) is None


@pytest.mark.parametrize(
    "args", [["--output", "x.yaml"], ["--from-feedback", "--url", "http://127.0.0.1:9"]]
)
def test_from_feedback_takes_only_output_and_output_only_with_it(args: list[str]) -> None:
    result = CliRunner().invoke(cli_app, ["eval", *args])
    assert result.exit_code == 2
    assert "--output" in result.output
