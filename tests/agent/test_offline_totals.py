"""Offline answers count from the true totals the shaped content carries, not from the page the
model was shown; a ``detail`` card reads as words; a call that never ran is not followed up.

The answers are the ones recorded on the sandbox (``bench/data/answers``), shaped as the model
reads them (:func:`sstools.agent.summarize.for_model`) and rendered as the offline planner does.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import SecretStr

from sstools.agent.card.arguments import card_arguments
from sstools.agent.context import ObjectType
from sstools.agent.offline.answers import render_content
from sstools.agent.summarize import for_model
from sstools.agent.tools import CATALOGUE, CallScope
from sstools.auth.roles import Role
from sstools.environments import Environment, EnvironmentRegistry, Stage
from sstools.testing import call_tool
from sstools.testing.recorded import RecordedAnswer, recorded
from tests.agent.conftest import dashboard_context
from tests.support import read_events, types

ANSWERS = {answer.case: answer for answer in recorded()}


def offline(case: str, *, shaped: bool = True) -> str:
    """The offline answer to a recorded call: from what the model reads, or the whole answer."""
    answer: RecordedAnswer = ANSWERS[case]
    spec = CATALOGUE[answer.tool]
    args = spec.args_model.model_validate(answer.args)
    content = (
        for_model(spec, args, answer.payload)
        if shaped
        else json.dumps(answer.payload, ensure_ascii=False)
    )
    return render_content(answer.tool, content, answer.args, answer.scope.env_id)


def test_a_dataset_with_150_columns_says_150_not_the_30_shown() -> None:
    answer = offline("dataset_150_columns")
    assert "Колонки (150): " in answer
    assert "…и ещё 138" in answer  # 12 names listed of 150
    assert "Метрики (30): " in answer
    assert "Графики (60): " in answer
    assert "Дашборды (25): " in answer


def test_git_status_counts_every_changed_dashboard_not_the_page_shown() -> None:
    concise, whole = (
        offline("git_status_100_dashboards"),
        offline("git_status_100_dashboards", shaped=False),
    )
    verdict = "Есть изменения, не сохранённые в git (ветка «main»): 93."
    assert concise.splitlines()[0] == verdict == whole.splitlines()[0]
    assert "Показаны первые 20 из 100." in concise
    assert "Показаны первые 20 из 100." in whole


def test_git_status_of_a_clean_page_says_clean() -> None:
    assert offline("git_status_dashboard").startswith("Незакоммиченных изменений нет")


def test_explored_tables_count_the_rest_from_the_total() -> None:
    concise = offline("tables_300")
    assert "…и ещё 260" in concise  # 40 names listed of 300, though the model saw 50
    assert concise == offline("tables_300", shaped=False)


def test_explored_columns_say_how_many_are_not_listed() -> None:
    concise = offline("columns_200")
    assert concise.startswith("Колонок: 200.")
    assert "Показаны первые 40 из 200." in concise
    assert concise == offline("columns_200", shaped=False)


def test_validation_says_how_many_findings_of_the_total_are_shown() -> None:
    assert "Показаны первые 12 из 80." in offline("validation_80_findings")
    assert "Показаны первые 15 из 80." in offline("validation_80_findings", shaped=False)


def test_a_plan_counts_unchanged_objects_and_the_changes_not_listed() -> None:
    concise = offline("migration_plan_220_objects")
    assert "- Показаны первые 20 из 33." in concise
    assert "- Без изменений: 187 объектов" in concise
    assert "Всего в плане" not in concise
    assert concise == offline("migration_plan_220_objects", shaped=False)
    assert "- Без изменений: 6 объектов" in offline("migration_plan")
    assert "- Без изменений: 24 объекта" in offline("migration_plan_all")


def test_branches_shortened_by_the_summary_leave_out_the_commit_they_lost() -> None:
    concise = offline("branches_60")
    assert "—, —" not in concise
    assert concise.startswith("Веток: 60.")
    assert "Показаны первые 20 из 60." in concise


ENVS = EnvironmentRegistry(
    [
        Environment(
            id="ss-dev",
            name="Superset dev",
            stage=Stage.dev,
            url="http://x",
            username="u",
            password=SecretStr("p"),
        )
    ]
)


def test_a_card_labels_detail_in_words_with_yes_for_true() -> None:
    tool = CATALOGUE["search_dashboards"]
    args = tool.args_model.model_validate({"query": "энерг", "detail": True})
    scope = CallScope(env_id="ss-dev", object_type=ObjectType.dashboard, object_id=10)
    shown = [(a.label, a.value) for a in card_arguments(tool, args, scope, None, ENVS)]
    assert ("Подробно", "да") in shown
    assert not any("detail" in label or value == "True" for label, value in shown)


async def test_a_refused_task_start_does_not_offer_following_a_task(make_agent: Any) -> None:
    """An analyst may not deploy: the refused call started nothing, so «Статус задачи» is not
    offered after it; a validation that ran started a task, and it is."""
    async with make_agent(call_tool("deploy_dashboard", {"target_env_id": "prod"})) as agent:
        cid = await agent.conversation(Role.analyst)
        await agent.send(cid, "выкати на прод", dashboard_context(), Role.analyst)
        events = await read_events(agent.client, cid, agent.auth(Role.analyst))
        assert "permission_denied" in types(events)
        after_refusal = agent.model.offered[-1]
    assert len(agent.model.offered) == 2
    assert "get_task_status" not in after_refusal
    async with make_agent(call_tool("run_llm_validation")) as agent:
        cid = await agent.conversation(Role.analyst)
        await agent.send(cid, "проверь дашборд", dashboard_context("3"), Role.analyst)
        events = await read_events(agent.client, cid, agent.auth(Role.analyst))
        assert [e["outcome"] for e in events if e["type"] == "tool_result"] == ["ok"], events
        # The turn keeps the set it started with (a prompt cache holds); the next offers it.
        assert "get_task_status" not in agent.model.offered[-1]
        await agent.send(cid, "как там проверка?", dashboard_context("3"), Role.analyst)
        await read_events(
            agent.client, cid, agent.auth(Role.analyst), last_event_id=events[-1]["_id"]
        )
        after_start = agent.model.offered[-1]
    assert "get_task_status" in after_start


async def test_a_cancelled_task_start_does_not_offer_following_a_task(
    make_agent: Any, plan_server: str
) -> None:
    def deploy_then_thanks(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if sum(isinstance(message, HumanMessage) for message in messages) > 1:
            return AIMessage(content="Пожалуйста.")  # whatever the router offers «спасибо»
        call = {"name": "deploy_dashboard", "args": {"target_env_id": "prod"}, "id": "c1"}
        return AIMessage(content="", tool_calls=[call])

    async with make_agent(deploy_then_thanks, tools_base_url=plan_server) as agent:
        cid = await agent.conversation(Role.engineer)
        await agent.send(cid, "выкати на прод", dashboard_context(), Role.engineer)
        card = (await read_events(agent.client, cid, agent.auth(Role.engineer)))[-1]
        assert card["type"] == "confirm_required", card
        assert (await agent.decide(cid, card["confirmation_id"], "deny")).status_code == 200
        denied = await read_events(
            agent.client, cid, agent.auth(Role.engineer), last_event_id=card["_id"]
        )
        assert "cancelled" in types(denied)
        calls_before = len(agent.model.offered)
        await agent.send(cid, "спасибо", dashboard_context(), Role.engineer)
        await read_events(
            agent.client, cid, agent.auth(Role.engineer), last_event_id=denied[-1]["_id"]
        )
        # The next turn's model call was made, and it was not offered «Статус задачи».
        assert len(agent.model.offered) == calls_before + 1
    assert "get_task_status" not in agent.model.offered[-1]
