"""What goes wrong inside stays inside: the chat gets a plain sentence, the log gets the detail."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage, BaseMessage
from sqlalchemy import event
from sqlalchemy.exc import TimeoutError as PoolTimeout

from sstools.agent import texts
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.http.deps import get_superset
from sstools.testing import call_tool
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.conftest import dashboard_context, dataset_context
from tests.conftest import AuthHeaders
from tests.openai_server import chat_through_openai_client
from tests.support import read_events, types

LEAKED_KEY = "sk-live-7fQ2xZP9wq4LEAKEDkey0000000000000000"  # a fake, to be caught


async def _ask(
    client: httpx.AsyncClient, headers: dict[str, str], text: str, cid: str | None = None
) -> tuple[str, list[dict[str, Any]], list[httpx.Response]]:
    """Send ``text`` and read its run's events; every HTTP response on the way is returned too."""
    responses = []
    if cid is None:
        created = await client.post("/api/agent/conversations", headers=headers)
        responses.append(created)
        cid = created.json()["id"]
    responses.append(
        await client.post(
            f"/api/agent/conversations/{cid}/messages",
            headers=headers,
            json={"text": text, "uicontext": None},
        )
    )
    run_id = responses[-1].json()["run_id"]
    events = await read_events(
        client, cid, headers, until=lambda e: e["type"] == "done" and e["run_id"] == run_id
    )
    responses.append(await client.get(f"/api/agent/conversations/{cid}", headers=headers))
    return cid, [e for e in events if e["run_id"] == run_id], responses


async def test_a_model_error_body_with_a_key_never_reaches_the_user_or_the_log(
    settings: Settings,
    fake_superset: FakeSuperset,
    auth: AuthHeaders,
    capfd: pytest.CaptureFixture[str],
) -> None:
    refusal = {
        "status": 401,
        "body": {
            "error": {
                "message": f"Incorrect API key provided: {LEAKED_KEY}. Find yours at ...",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }
        },
    }
    chat = chat_through_openai_client(lambda messages, tools: refusal, settings, fake_superset)
    async with chat as (client, _):
        _, events, responses = await _ask(client, auth(Role.analyst), "привет")
    assert types(events) == ["run_started", "error", "done"]
    assert events[1]["code"] == "llm_error"
    assert events[1]["message"] == texts.LLM_FAILED
    seen = json.dumps(events) + "".join(r.text for r in responses)
    assert LEAKED_KEY not in seen
    assert "Incorrect API key" not in seen
    log = capfd.readouterr()
    assert LEAKED_KEY not in log.out + log.err
    assert "401" in log.out + log.err  # the detail an operator needs is there


async def test_a_tool_call_with_arguments_that_are_not_json_is_reported(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        if "снова" in messages[-1]["content"]:
            return {"text": "Теперь всё получилось."}
        return {"tool_calls": [("list_environments", "{'query': 'dev'}")]}  # Python, not JSON

    async with chat_through_openai_client(script, settings, fake_superset) as (client, llm):
        headers = auth(Role.analyst)
        cid, events, _ = await _ask(client, headers, "какие есть окружения?")
        _, again, _ = await _ask(client, headers, "попробуй снова", cid)
    assert types(events) == ["run_started", "error", "done"]
    assert events[1]["code"] == "llm_error"
    assert events[1]["message"] == texts.MODEL_REPLY_UNUSABLE
    # The conversation is not poisoned: the next turn reaches the model and gets an answer.
    assert types(again)[-2:] == ["message", "done"]
    assert again[-2]["text"].startswith("Теперь всё получилось.")
    assert len(llm.requests) == 2


def _loops_forever(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    # Never the same call twice (a repeat is not run again): a new search every step.
    call = {"name": "search_dashboards", "args": {"query": f"отчёт {len(messages)}"}}
    return AIMessage(content="", tool_calls=[{**call, "id": f"c{len(messages)}"}])


async def test_hitting_the_step_limit_says_so_plainly(make_agent: Any) -> None:
    async with make_agent(_loops_forever) as agent:
        cid = await agent.conversation(Role.analyst)
        await agent.send(cid, "что ты умеешь?", None, Role.analyst)
        events = await read_events(agent.client, cid, agent.auth(Role.analyst), timeout_s=60)
    assert types(events)[-2:] == ["error", "done"]
    assert events[-2]["code"] == "llm_error"
    assert events[-2]["message"] == texts.RUN_TOO_LONG
    assert "ecursion" not in json.dumps(events)


RAW = "pool exploded at postgresql://svc:hunter2@db.internal"  # never to reach the chat


def _raw_seen(events: list[dict[str, Any]]) -> bool:
    text = json.dumps(events, ensure_ascii=False)
    return any(part in text for part in ("hunter2", "exploded", "RuntimeError", "Traceback"))


async def test_a_model_call_that_raises_is_an_llm_error(make_agent: Any) -> None:
    def model_down(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        raise RuntimeError(RAW)

    async with make_agent(model_down) as agent:
        _, events = await agent.ask("привет", None, Role.analyst)
    assert types(events) == ["run_started", "error", "done"]
    assert (events[1]["code"], events[1]["message"]) == ("llm_error", texts.LLM_FAILED)
    assert not _raw_seen(events)


async def test_a_tool_that_fails_unexpectedly_is_a_tool_error_and_the_model_hears_of_it(
    make_agent: Any,
) -> None:
    def broken_superset() -> None:
        raise RuntimeError(RAW)

    async with make_agent(call_tool("get_health_summary", {}, text="Не получилось.")) as agent:
        # In process, the tool's HTTP call reaches this app; its Superset client is what breaks.
        agent.app.dependency_overrides[get_superset] = broken_superset
        _, events = await agent.ask("как дела у дашборда?", dashboard_context("3"), Role.analyst)
    crashed = texts.TOOL_CRASHED.format(tool=CATALOGUE["get_health_summary"].title)
    assert types(events) == ["run_started", "tool_call", "tool_result", "error", "message", "done"]
    assert (events[2]["outcome"], events[2]["message"]) == ("error", crashed)
    assert (events[3]["code"], events[3]["message"]) == ("tool_error", crashed)
    assert events[4]["text"].startswith("Не получилось.")  # the run went on: the model was told
    assert json.loads(str(agent.model.prompts[-1][-1].content)) == {"error": crashed}
    assert not _raw_seen(events)


async def test_a_storage_failure_is_an_internal_error_and_frees_the_conversation(
    make_agent: Any,
) -> None:
    def refuse_confirmations(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO CONFIRMATIONS"):
            raise RuntimeError(RAW)

    delete = {"sql": "delete from sales where 1=1", "database_id": 1}
    async with make_agent(call_tool("superset_execute_sql", delete)) as agent:
        engine = agent.app.state.services.engine.sync_engine
        event.listen(engine, "before_cursor_execute", refuse_confirmations)
        cid, events = await agent.ask("удали продажи", dataset_context(env_id="prod"))
        event.remove(engine, "before_cursor_execute", refuse_confirmations)
        history = await agent.client.get(
            f"/api/agent/conversations/{cid}", headers=agent.auth(Role.engineer)
        )
    assert types(events) == ["run_started", "tool_call", "error", "done"]
    assert (events[2]["code"], events[2]["message"]) == ("internal_error", texts.INTERNAL_ERROR)
    assert history.json()["pending_confirmation"] is None
    assert history.json()["running"] is False
    assert not _raw_seen(events)


async def test_a_database_pool_with_no_free_connection_is_a_503_to_retry(make_agent: Any) -> None:
    """An overloaded worker (every connection busy for the pool's whole wait) said 500."""

    def exhausted(*_: Any) -> None:
        raise PoolTimeout("QueuePool limit of size 8 overflow 4 reached")

    async with make_agent(call_tool("show_capabilities")) as agent:
        cid = await agent.conversation()
        pool = agent.app.state.services.engine.sync_engine.pool
        event.listen(pool, "checkout", exhausted)
        try:
            listing = await agent.client.get(
                f"/api/agent/conversations/{cid}", headers=agent.auth(Role.engineer)
            )
            sent = await agent.send(cid, "что ты умеешь?", dashboard_context())
        finally:
            event.remove(pool, "checkout", exhausted)
        again = await agent.send(cid, "что ты умеешь?", dashboard_context())
        await read_events(agent.client, cid, agent.auth(Role.engineer))
    assert (listing.status_code, listing.headers["Retry-After"]) == (503, "5")
    assert "повторите попытку" in listing.json()["detail"]
    assert "сначала проверьте" not in listing.json()["detail"]
    assert sent.status_code == 503
    assert "могло сохраниться" in sent.json()["detail"]
    assert RAW not in sent.text
    assert again.status_code == 202
