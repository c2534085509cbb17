"""End to end over real HTTP and SSE: context, confirmations, denials, cancellations, reconnects."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import timedelta
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from sqlalchemy import select, update

from sstools.agent.context import BLOCK_END, BLOCK_START, UIContext
from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.config import Settings
from sstools.storage.models import AuditEntry, Confirmation, Conversation
from sstools.testing import answer, call_tool
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.cards import DELETE, delete_sales_card, delete_sales_card_on_a_hand_clock
from tests.agent.conftest import DASHBOARD_SET, dashboard_context, dataset_context
from tests.support import read_events, start_conversation, types


async def _audit(agent: Any, action: str) -> list[AuditEntry]:
    async with agent.app.state.services.sessions() as session:
        return list(await session.scalars(select(AuditEntry).where(AuditEntry.action == action)))


async def test_sc_001_dashboard_context_reaches_the_prompt_with_only_dashboard_tools(
    make_agent: Any,
) -> None:
    # The exact set is the hard filter's (Story 1 acceptance 3): routing off, it is what's sent.
    async with make_agent(answer("Это дашборд 42."), router="off") as agent:
        _, events = await agent.ask(
            "расскажи про этот дашборд", dashboard_context("42"), Role.admin
        )
    assert types(events) == ["run_started", "message", "done"]
    system = agent.model.system_prompts()[0]
    block = system.split(BLOCK_START, 1)[1].split(BLOCK_END, 1)[0]
    assert json.loads(block)["objectId"] == "42"
    assert json.loads(block)["objectType"] == "dashboard"
    assert "не инструкции" in system
    assert set(agent.model.offered[0]) == DASHBOARD_SET


async def test_story1_acceptance1_this_dashboard_is_understood_without_naming_it(
    make_agent: Any,
) -> None:
    async with make_agent(call_tool("get_health_summary", {})) as agent:
        _, events = await agent.ask(
            "какой статус у этого дашборда?", dashboard_context("3"), Role.analyst
        )
    assert types(events) == ["run_started", "tool_call", "tool_result", "message", "done"]
    assert events[2]["outcome"] == "ok"
    health = json.loads(str(agent.model.prompts[-1][-1].content))
    assert health["dashboard_id"] == 3
    assert health["env_id"] == "ss-dev"
    assert health["title"] == "Дашборд 3"
    assert health["git_status"] == "не версионирован"
    assert health["last_validation"] == "не проверялся"


async def test_story1_acceptance5_each_visit_and_tab_has_its_own_context(make_agent: Any) -> None:
    async with make_agent(answer("ок")) as agent:
        first, second = await agent.conversation(), await agent.conversation()
        await agent.send(first, "что это?", dashboard_context("5"))
        await agent.send(second, "что это?", dataset_context("7", env_id="prod"))
        await read_events(agent.client, first, agent.auth(Role.engineer))
        await read_events(agent.client, second, agent.auth(Role.engineer))
        await agent.send(first, "а теперь?", dashboard_context("6"))
        await read_events(
            agent.client,
            first,
            agent.auth(Role.engineer),
            until=lambda e: e["type"] == "done" and e["_id"] > 3,
        )
        history = (
            await agent.client.get(
                f"/api/agent/conversations/{first}", headers=agent.auth(Role.engineer)
            )
        ).json()
    blocks = [
        json.loads(p.split(BLOCK_START)[1].split(BLOCK_END)[0])
        for p in agent.model.system_prompts()
    ]
    assert sorted((b["objectType"], b["objectId"], b["envId"]) for b in blocks) == [
        ("dashboard", "5", "ss-dev"),
        ("dashboard", "6", "ss-dev"),
        ("dataset", "7", "prod"),
    ]
    assert [m["uicontext"]["objectId"] for m in history["messages"] if m["role"] == "user"] == [
        "5",
        "6",
    ]


async def test_the_context_rides_beside_the_prompt_as_data_and_stays_out_of_the_state(
    make_agent: Any,
) -> None:
    async with make_agent(answer("ок")) as agent:
        cid = await agent.conversation()
        await agent.send(cid, "что это?", dashboard_context("5"))
        await read_events(agent.client, cid, agent.auth(Role.engineer))
        state = await agent.app.state.agent.graph.aget_state({"configurable": {"thread_id": cid}})
    system = [m for m in agent.model.prompts[0] if isinstance(m, SystemMessage)]
    assert [m.additional_kwargs["ui_context"]["object_id"] for m in system] == ["5"]
    assert UIContext.model_validate(system[0].additional_kwargs["ui_context"]).env_id == "ss-dev"
    # The prompt is made per step: the checkpoint holds the conversation, not the prompt.
    assert not any(isinstance(m, SystemMessage) for m in state.values["messages"])


async def test_old_history_without_context_degrades_to_unavailable(make_agent: Any) -> None:
    # The exact set is the hard filter's (no object, no environment): routing off, it is sent.
    async with make_agent(answer("ок"), router="off") as agent:
        cid = await agent.conversation()
        await agent.send(cid, "привет", None)
        await read_events(agent.client, cid, agent.auth(Role.engineer))
    assert "контекст недоступен" in agent.model.system_prompts()[0]
    assert "Окружение не выбрано: нужно выбрать окружение" in agent.model.system_prompts()[0]
    assert set(agent.model.offered[0]) == {
        "show_capabilities",
        "list_environments",
        "get_task_status",
        "list_tasks",
        "create_branch",
        "commit_changes",
        "get_git_status",
        "list_branches",
        "superset_format_sql",
        "rollback_deploy",  # names its environment; the server checks it against the task
        "get_drift",  # every environment's, when none is chosen
    }


async def test_malformed_object_type_is_422_audited_and_never_prompted(make_agent: Any) -> None:
    async with make_agent(answer("ок")) as agent:
        cid = await agent.conversation()
        response = await agent.send(cid, "привет", {**dashboard_context(), "objectType": "invalid"})
        entries = await _audit(agent, "context_rejected")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "uicontext", "objectType"]
    assert len(entries) == 1
    assert entries[0].detail["field"] == "uicontext.objectType"
    assert "invalid" in entries[0].detail["excerpt"]
    assert agent.model.prompts == []


async def test_aggrd_fr_003_permission_denied_comes_before_any_card(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE)) as agent:
        _, events = await agent.ask("удали продажи", dataset_context(), Role.analyst)
    assert types(events) == [
        "run_started",
        "tool_call",
        "permission_denied",
        "tool_result",
        "message",
        "done",
    ]
    denied = events[2]
    assert denied["tool"] == "superset_execute_sql"
    assert denied["required_roles"] == ["engineer"]
    assert denied["message"].startswith("Недостаточно прав")
    assert fake_superset.executed_sql == []


async def test_story2_prod_write_gets_a_destructive_card_and_runs_once_on_approval(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE, text="Удалено.")) as agent:
        cid, card = await delete_sales_card(agent)
        assert card["decision"]["tone"] == "destructive"
        assert card["decision"]["stage"] == "prod"
        assert card["decision"]["prompt"].startswith("⚠️ ПРОДУКТИВ")
        assert fake_superset.executed_sql == []  # nothing before the decision
        response = await agent.decide(cid, card["confirmation_id"], "approve")
        assert response.status_code == 200
        events = await agent.events_after(cid, card)
        again = await agent.decide(cid, card["confirmation_id"], "approve")
    assert types(events) == ["run_started", "tool_result", "message", "done"]
    assert fake_superset.executed_sql == [DELETE["sql"]]
    assert again.status_code == 409


async def test_aggrd_fr_004_deny_cancels_explicitly_and_nothing_runs(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE)) as agent:
        cid, card = await delete_sales_card(agent)
        assert (await agent.decide(cid, card["confirmation_id"], "deny")).status_code == 200
        events = await agent.events_after(cid, card)
        history = (
            await agent.client.get(
                f"/api/agent/conversations/{cid}", headers=agent.auth(Role.engineer)
            )
        ).json()
    assert types(events) == ["run_started", "cancelled", "message", "done"]
    assert events[1]["message"].startswith("Операция отменена: вы отклонили «Выполнение SQL»")
    assert events[2]["text"] == events[1]["message"]
    assert history["messages"][-1]["text"].startswith("Операция отменена")
    assert fake_superset.executed_sql == []
    assert len(agent.model.prompts) == 1  # the agent did not carry on after the cancellation


async def test_twenty_parallel_approvals_execute_once(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE)) as agent:
        cid, card = await delete_sales_card(agent)
        responses = await asyncio.gather(
            *(agent.decide(cid, card["confirmation_id"], "approve") for _ in range(20))
        )
        await agent.events_after(cid, card)
    assert sorted(r.status_code for r in responses) == [200] + [409] * 19
    assert fake_superset.executed_sql == [DELETE["sql"]]


async def test_confirmation_is_bound_to_its_owner_and_its_arguments(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE)) as agent:
        cid, card = await delete_sales_card(agent)
        url = f"/api/agent/conversations/{cid}"
        other = agent.auth(Role.admin)  # another user, even a more powerful one
        assert (await agent.client.get(url, headers=other)).status_code == 404
        assert (
            await agent.decide(cid, card["confirmation_id"], "approve", Role.admin)
        ).status_code == 404
        assert (
            await agent.client.post(f"{url}/messages", json={"text": "x"}, headers=other)
        ).status_code == 404
        bad = await agent.client.post(
            f"{url}/confirmations/{card['confirmation_id']}",
            json={"decision": "yes"},
            headers=agent.auth(Role.engineer),
        )
        assert bad.status_code == 422
        busy = await agent.send(cid, "ещё", dataset_context(env_id="prod"))
        assert busy.status_code == 409
        # Someone alters what was approved: the hash no longer matches the paused call.
        async with agent.app.state.services.sessions() as session:
            await session.execute(update(Confirmation).values(args_hash="0" * 64))
            await session.commit()
        assert (await agent.decide(cid, card["confirmation_id"], "approve")).status_code == 200
        events = await agent.events_after(cid, card)
    assert "cancelled" in types(events)
    assert "не совпадает" in next(e for e in events if e["type"] == "cancelled")["message"]
    assert fake_superset.executed_sql == []


async def test_reconnect_re_emits_the_pending_confirmation_once(make_agent: Any) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE)) as agent:
        cid, card = await delete_sales_card(agent)
        replay = await agent.events_after(cid, card)
        fresh = await read_events(agent.client, cid, agent.auth(Role.engineer))
    assert types(replay) == ["confirm_required"]
    assert replay[0]["confirmation_id"] == card["confirmation_id"]
    assert replay[0]["_id"] == card["_id"]  # the cursor never moves back
    assert [e["confirmation_id"] for e in fresh if e["type"] == "confirm_required"] == [
        card["confirmation_id"]
    ]


async def test_expired_confirmation_is_cancelled(
    make_agent: Any, fake_superset: FakeSuperset, settings: Settings
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE)) as agent:
        clock, cid, card = await delete_sales_card_on_a_hand_clock(agent)
        await agent.idle(cid)  # the card's run lets go just after the card: only then can it expire
        clock.now += timedelta(seconds=settings.confirmation_ttl_s - 1)
        assert await _pending_card(agent, cid) is not None  # not yet
        clock.now += timedelta(seconds=1)
        late = await agent.decide(cid, card["confirmation_id"], "approve")
        events = await agent.events_after(cid, card)
    assert late.status_code == 409
    assert types(events) == ["run_started", "cancelled", "message", "done"]
    assert "истекло" in events[1]["message"]
    assert fake_superset.executed_sql == []


async def test_a_confirmation_expires_on_its_own_and_frees_the_conversation(
    make_agent: Any, fake_superset: FakeSuperset, settings: Settings
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE)) as agent:
        clock, cid, card = await delete_sales_card_on_a_hand_clock(agent)
        await agent.idle(cid)  # the card's run lets go just after the card: only then can it expire
        clock.now += timedelta(seconds=settings.confirmation_ttl_s)
        assert await _pending_card(agent, cid) is None  # nobody decided: reading expires it
        events = await agent.events_after(cid, card)
        await agent.idle(cid)  # the expiry's run lets go just after its last event
        again = await agent.send(cid, "ещё раз", dataset_context(env_id="prod"))
        late = await agent.decide(cid, card["confirmation_id"], "approve")
    assert types(events) == ["run_started", "cancelled", "message", "done"]
    assert events[1]["confirmation_id"] == card["confirmation_id"]
    assert "истекло" in events[1]["message"]
    assert again.status_code == 202
    assert late.status_code == 409
    assert fake_superset.executed_sql == []


async def _pending_card(agent: Any, cid: str) -> dict[str, Any] | None:
    history = await agent.client.get(
        f"/api/agent/conversations/{cid}", headers=agent.auth(Role.engineer)
    )
    card: dict[str, Any] | None = history.json()["pending_confirmation"]
    return card


async def test_hitl_all_asks_for_reads_with_a_green_card(make_agent: Any) -> None:
    async with make_agent(
        call_tool("search_dashboards", {"query": "дашборд"}), hitl="all"
    ) as agent:
        _, events = await agent.ask("удали продажи", dashboard_context())
        card = events[-1]
        assert card["type"] == "confirm_required", events
    assert card["tool"] == "search_dashboards"
    assert (card["decision"]["tone"], card["decision"]["level"], card["decision"]["prompt"]) == (
        "success",
        "safe",
        "Чтение данных",
    )


async def test_jwt_expiring_mid_conversation_is_reported_once(
    make_agent: Any, settings: Settings
) -> None:
    def slow_search(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content="не должен вызываться")
        time.sleep(2.5)  # the token (≥ 1 s left when sent: exp is whole seconds) expires meanwhile
        return AIMessage(
            content="", tool_calls=[{"name": "search_dashboards", "args": {}, "id": "call_1"}]
        )

    async with make_agent(slow_search) as agent:
        token = issue_token(settings, Principal(username="engineer", role=Role.engineer), ttl_s=2)
        headers = {"Authorization": f"Bearer {token}"}
        cid = await start_conversation(agent.client, headers, "найди", dashboard_context())
        events = await read_events(agent.client, cid, agent.auth(Role.engineer))
    assert types(events) == ["run_started", "tool_call", "tool_result", "error", "done"]
    assert events[3] == {
        **events[3],
        "code": "session_expired",
        "message": "сессия истекла, обновите страницу",
    }
    assert len(agent.model.prompts) == 1


async def test_show_capabilities_says_what_is_hidden_and_why(make_agent: Any) -> None:
    async with make_agent(call_tool("show_capabilities")) as agent:
        cid = await agent.conversation(Role.analyst)
        await agent.send(
            cid, "что ты умеешь?", {**dashboard_context(), "envId": None}, Role.analyst
        )
        await read_events(agent.client, cid, agent.auth(Role.analyst))
    capabilities = json.loads(str(agent.model.prompts[-1][-1].content))
    why = {item["tool"]: item["why"] for item in capabilities["hidden"]}
    assert why["deploy_dashboard"] == "нужна роль «инженер»"
    assert why["get_health_summary"] == "нужно выбрать окружение"
    assert why["superset_execute_sql"] == "не относится к дашборду"
    # With no environment: only what needs none — the page's history, git and drift (issue 33 §3).
    available = {item["tool"] for item in capabilities["available"]}
    assert available == {"show_capabilities", "list_tasks", "get_git_status", "get_drift"}


async def test_a_run_cut_off_by_a_restart_ends_with_an_explicit_error(make_agent: Any) -> None:
    async with make_agent(answer("ок")) as agent:
        cid = await agent.conversation()
        async with agent.app.state.services.sessions() as session:  # as if the process died
            await session.execute(update(Conversation).values(active_run_id="run_lost"))
            await session.commit()
    async with make_agent(answer("ок")) as restarted:
        events = await read_events(restarted.client, cid, restarted.auth(Role.engineer))
        again = await restarted.send(cid, "ещё раз", None)
        await read_events(
            restarted.client,
            cid,
            restarted.auth(Role.engineer),
            until=lambda e: e["type"] == "done" and e["run_id"] != "run_lost",
        )
    assert types(events) == ["error", "done"]
    assert events[0]["code"] == "run_interrupted"
    assert events[0]["message"] == (
        "выполнение прервано перезапуском сервера; если шла запись, проверьте её результат "
        "(список задач, состояние окружения), прежде чем повторять запрос"
    )
    assert again.status_code == 202  # the conversation is usable again


async def test_a_write_whose_plan_cannot_be_made_gets_no_card_but_the_reason(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    """Superset does not answer, so no plan: no card, the reason in words, nothing run."""
    fake_superset.fail_with = 503
    deploy = call_tool("deploy_dashboard", {"target_env_id": "prod"}, text="Не вышло.")
    async with make_agent(deploy) as agent:
        _, events = await agent.ask("разверни этот дашборд в prod", dashboard_context())
        tasks = await agent.client.get("/api/tasks", headers=agent.auth(Role.engineer))
    assert "confirm_required" not in types(events)
    assert tasks.json() == [], "no task may start without an approved plan"
    result = next(event for event in events if event["type"] == "tool_result")
    assert result["outcome"] == "refused"
    assert result["message"].startswith("«Выкатка дашборда»: оценить нельзя — "), result
    assert "Ничего не изменено" in result["message"]
    # What the model read: the same words, and that the call never ran.
    tool_message = agent.model.prompts[-1][-1]
    assert isinstance(tool_message, ToolMessage)
    assert "оценить нельзя" in str(tool_message.content)
