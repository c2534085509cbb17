"""A model on a page: the page's object, the role it lacks, one offered set a turn (issue 21,
6, 7 and 9)."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from sqlalchemy import select

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.storage.models import AuditEntry
from sstools.testing import call_tool
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.conftest import DASHBOARD_SET, dashboard_context
from tests.conftest import AuthHeaders
from tests.openai_server import chat_through_openai_client
from tests.support import read_events, types


def _done_of(run_id: str, event: dict[str, Any]) -> bool:
    return bool(event["type"] == "done" and event["run_id"] == run_id)


async def _sent(agent: Any, tool: str) -> int:
    async with agent.app.state.services.sessions() as session:
        entries = await session.scalars(select(AuditEntry).where(AuditEntry.action == "tool_call"))
        return sum(1 for entry in entries if entry.detail.get("tool") == tool)


# -- 6: the id comes from the page ------------------------------------------------------------


async def test_a_made_up_id_on_a_dashboard_page_is_refused(make_agent: Any) -> None:
    health = call_tool("get_health_summary", {"dashboard_id": 11}, text="Дашборд в порядке.")
    async with make_agent(health) as agent:
        _, events = await agent.ask(
            "как дела у этого дашборда?", dashboard_context("6"), Role.analyst
        )
        sent = await _sent(agent, "get_health_summary")
    assert sent == 0  # dashboard 11 was never read
    result = next(e for e in events if e["type"] == "tool_result")
    assert result["outcome"] == "refused"
    assert "#11 не тот, что на странице (#6)" in result["message"]
    told = agent.model.prompts[-1][-1]
    assert isinstance(told, ToolMessage)
    assert "не указывайте id" in str(told.content)


async def test_an_id_the_person_named_runs(make_agent: Any) -> None:
    health = call_tool("get_health_summary", {"dashboard_id": 4}, text="Дашборд 4 в порядке.")
    async with make_agent(health) as agent:
        _, events = await agent.ask(
            "а как дела у дашборда 4?", dashboard_context("6"), Role.analyst
        )
        sent = await _sent(agent, "get_health_summary")
    assert sent == 1
    assert [e["outcome"] for e in events if e["type"] == "tool_result"] == ["ok"]


async def test_a_write_on_another_dashboard_says_so_on_its_card(
    make_agent: Any, plan_server: str
) -> None:
    deploy = call_tool("deploy_dashboard", {"dashboard_id": 5, "target_env_id": "prod"})
    async with make_agent(deploy, tools_base_url=plan_server) as agent:
        cid = await agent.conversation(Role.engineer)
        await agent.send(cid, "выкати дашборд 5 в prod", dashboard_context("6"))
        card = (await read_events(agent.client, cid, agent.auth(Role.engineer)))[-1]
    assert card["type"] == "confirm_required"
    shown = {a["label"]: a["value"] for a in card["decision"]["arguments"]}
    # The page's dashboard by its name in Superset (the card names it from the server).
    assert shown["Дашборд"] == "#5 — не тот дашборд, что на странице: там Дашборд 6 (#6)"


# -- 7: what the role lacks is said -----------------------------------------------------------


def _answers_from_the_prompt(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    """A model that does what the prompt says: nothing offered deploys, so it names the role."""
    system = str(next(m.content for m in messages if isinstance(m, SystemMessage)))
    lines = [line for line in system.splitlines() if "недоступно" in line]
    if "deploy_dashboard" in offered or not lines:
        return AIMessage(content="Сейчас выкачу.")
    return AIMessage(content=lines[-1])


async def test_an_analyst_asking_to_deploy_is_told_the_role_needed(make_agent: Any) -> None:
    async with make_agent(_answers_from_the_prompt) as agent:
        _, events = await agent.ask("разверни в prod", dashboard_context("6"), Role.analyst)
        engineer = await agent.conversation(Role.engineer)
        await agent.send(engineer, "что нового?", dashboard_context("6"))
        await read_events(agent.client, engineer, agent.auth(Role.engineer))
    system = agent.model.system_prompts()[0]
    assert "не вызывай другой вместо него" in system
    assert "«Выкатка дашборда» — доступно роли «инженер»" in system
    assert types(events) == ["run_started", "message", "done"]
    assert "«Выкатка дашборда» — доступно роли «инженер»" in events[1]["text"]
    assert "Выкатка дашборда" not in agent.model.system_prompts()[-1]  # an engineer may


# -- 9: one offered set a turn, byte for byte -------------------------------------------------


async def test_the_tools_sent_stay_byte_identical_through_a_turn(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    """A task started and a tool used mid-turn change nothing sent: the prompt cache holds."""

    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        asked = max(i for i, m in enumerate(messages) if m["role"] == "user")
        results = sum(m["role"] == "tool" for m in messages[asked:])
        if "задач" in messages[asked]["content"]:
            return {"text": "Задача идёт."}
        if results == 0:
            return {"tool_calls": [("run_llm_validation", {})]}
        if results == 1:
            return {"tool_calls": [("get_health_summary", {})]}
        return {"text": "Проверка запущена, дашборд в порядке."}

    async with chat_through_openai_client(script, settings, fake_superset) as (client, llm):
        headers = auth(Role.analyst)
        cid = (await client.post("/api/agent/conversations", headers=headers)).json()["id"]
        for text in ("проверь этот дашборд", "а что с задачей?"):
            sent = await client.post(
                f"/api/agent/conversations/{cid}/messages",
                headers=headers,
                json={"text": text, "uicontext": dashboard_context("3")},
            )
            run_id = sent.json()["run_id"]
            await read_events(
                client,
                cid,
                headers,
                until=partial(_done_of, run_id),
            )
    first_turn = llm.requests[:3]
    assert len(llm.requests) == 4
    assert [m["role"] for m in first_turn[-1]["messages"]][-4:] == [
        "assistant",
        "tool",
        "assistant",
        "tool",
    ]
    tools = [json.dumps(request["tools"], ensure_ascii=False) for request in first_turn]
    assert tools[0] == tools[1] == tools[2]
    systems = [request["messages"][0]["content"] for request in first_turn]
    assert systems[0] == systems[1] == systems[2]
    offered = {tool["function"]["name"] for tool in first_turn[0]["tools"]}
    assert offered <= DASHBOARD_SET
    assert "get_task_status" not in offered
    # The next turn follows the task it started: decided at its start, for all of it.
    assert "get_task_status" in {tool["function"]["name"] for tool in llm.requests[3]["tools"]}
