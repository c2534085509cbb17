"""The labelled requests run as eval scenarios: a real model is graded on the same requests as
the offline planner, each expectation kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sstools.evaluation.scenarios import ScenarioFileError, load_scenarios

REQUESTS = Path(__file__).parents[2] / "bench" / "data" / "requests.jsonl"


def test_every_labelled_request_becomes_a_scenario_graded_by_its_split() -> None:
    lines = [json.loads(line) for line in REQUESTS.read_text("utf-8").splitlines() if line]
    scenarios = load_scenarios(REQUESTS).scenarios
    assert len(scenarios) == len(lines)
    assert {one.kind for one in scenarios} == {"tune", "heldout"}
    for line, scenario in zip(lines, scenarios, strict=True):
        assert scenario.message == line["text"]
        assert scenario.role.value == line["role"]
        expect = line["expect"]
        if "tool" in expect:
            assert scenario.expect.tools.any_of == [expect["tool"]]
            if line["kind"] == "question":
                assert scenario.expect.confirmation == "none"  # a question is never carded
        elif "refusal_role" in expect:
            names = {"engineer": "инженер", "admin": "администратор"}
            assert scenario.expect.answer_contains == [names[expect["refusal_role"]]]
            assert scenario.expect.forbidden_tools == [expect["for_tool"]]
        else:
            assert scenario.expect.answer_excludes == [expect["ask"]]  # never the argument name


def test_a_broken_line_is_named_by_its_number(tmp_path: Path) -> None:
    broken = tmp_path / "requests.jsonl"
    good = REQUESTS.read_text("utf-8").splitlines()[0]
    broken.write_text(f'{good}\n{{"text": ""}}\n', encoding="utf-8")
    with pytest.raises(ScenarioFileError, match=r"requests\.jsonl:2"):
        load_scenarios(broken)
