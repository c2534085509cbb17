"""Issue 21 §11: every scenario checks its answer; raw call JSON and false claims fail it.

Two scenarios passed with a real 1.5B model whose answers were a tool call written as JSON and
«Ваш бэкап успешно создан» after an empty list of backups. These are those answers, graded.
"""

from __future__ import annotations

from typing import Any

import pytest

from sstools.evaluation.grading import Transcript, grade
from sstools.evaluation.scenarios import Expectation, load_scenarios


def said(*texts: str, tool: str | None = None) -> Transcript:
    events: list[dict[str, Any]] = [{"type": "run_started"}]
    if tool:
        events.append({"type": "tool_call", "tool": tool})
    events += [{"type": "message", "text": text} for text in texts]
    return Transcript(events=[*events, {"type": "done"}])


RAW_CALLS = [
    '{"name": "list_backups", "arguments": {}}',
    'Вызываю:\n```json\n{"name": "search_dashboards", "arguments": {"query": "all"}}\n```',
    '<tools>{"name": "get_health_summary", "arguments": {"dashboard_id": 11}}</tools>',
    '<tool_call>\n{"name": "run_backup", "arguments": {}}\n</tool_call>',
    '[{"type": "function", "function": {"name": "list_environments", "arguments": "{}"}}]',
    "<function=list_tasks>{}</function>",
]


@pytest.mark.parametrize("answer", RAW_CALLS)
def test_a_call_written_as_text_fails_any_scenario(answer: str) -> None:
    reasons = grade(Expectation(), said(answer))
    assert len(reasons) == 1
    assert "tool call as text" in reasons[0] or "as raw JSON" in reasons[0]


def test_json_that_is_not_a_call_is_an_answer() -> None:
    answer = 'Колонки: {"region": "TEXT"}; ответ сервера: {"name": "Energy KPIs", "id": 6}'
    assert grade(Expectation(), said(answer)) == []


def test_an_empty_answer_fails_any_scenario() -> None:
    assert grade(Expectation(), said("", "  ")) == ["the answer is empty: the person read nothing"]


def test_the_false_backup_claim_fails_the_shipped_scenario() -> None:
    scenario = next(
        one for one in load_scenarios().scenarios if one.id == "s3-analyst-backup-not-offered"
    )
    reasons = grade(scenario.expect, said("Ваш бэкап успешно создан.", tool="list_backups"))
    assert "answer contains 'бэкап успешно создан'" in reasons
    right = "Резервную копию делает только роль «администратор»; у вас — «аналитик»."
    assert grade(scenario.expect, said(right, tool="list_backups")) == []


def test_every_shipped_scenario_checks_its_answer() -> None:
    for scenario in load_scenarios().scenarios:
        assert scenario.expect.answer_contains, scenario.id
