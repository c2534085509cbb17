"""Issue 21 §10: the settings a slow or local model needs reach the real client and hold.

Every test drives the app through its HTTP API with the real OpenAI client (langchain-openai →
openai) talking to the scripted OpenAI-compatible server, whose wire format is the real one.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from starlette.requests import Request
from starlette.responses import Response

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.config import Settings
from sstools.evaluation.runner import turn_timeout_s
from sstools.llm.configured import request_body_extras
from sstools.sandbox import Sandbox
from sstools.testing import LiveServer
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from sstools.texts.validation import REVIEW_DONE
from tests.conftest import AuthHeaders, environments_for, make_settings, seed_users
from tests.openai_server import OpenAIScript, Reply, ScriptedOpenAI
from tests.rig import run_sstools
from tests.support import read_events, types

ENV = "ss-dev"
GENERAL = {"contextVersion": 1, "envId": "ss-dev", "route": "/settings"}


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    body = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "scripted"}
    return f"data: {json.dumps(body | {'choices': [choice]}, ensure_ascii=False)}\n\n"


def answer(text: str) -> OpenAIScript:
    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        return {"text": text}

    return script


class StallingOpenAI(ScriptedOpenAI):
    """Starts its streamed reply, then stays silent for ``stall_s`` before finishing it."""

    def __init__(self, script: OpenAIScript, stall_s: float) -> None:
        super().__init__(script)
        self.stall_s = stall_s

    async def completions(self, request: Request) -> Response:
        response = await super().completions(request)
        stall = self.stall_s

        async def stalled() -> AsyncIterator[str]:
            yield chunk({"role": "assistant", "content": "Сейчас "})
            await asyncio.sleep(stall)
            yield chunk({"content": "отвечу."}, "stop")
            yield "data: [DONE]\n\n"

        response.body_iterator = stalled()  # type: ignore[attr-defined]
        return response


class FlakyOpenAI(ScriptedOpenAI):
    """Answers its first ``failures`` requests with 500, as an overloaded server does."""

    def __init__(self, script: OpenAIScript, failures: int) -> None:
        super().__init__(script)
        self.failures = failures
        self.seen = 0

    async def completions(self, request: Request) -> Response:
        self.seen += 1
        if self.seen <= self.failures:
            return Response('{"error": {"message": "overloaded"}}', status_code=500)
        return await super().completions(request)


class SlowOpenAI(ScriptedOpenAI):
    """Takes ``delay_s`` before each answer and remembers how many requests it held at once."""

    def __init__(self, script: OpenAIScript, delay_s: float) -> None:
        super().__init__(script)
        self.delay_s = delay_s
        self.arrived = 0
        self.in_flight = 0
        self.most_at_once = 0

    async def completions(self, request: Request) -> Response:
        self.arrived += 1
        self.in_flight += 1
        self.most_at_once = max(self.most_at_once, self.in_flight)
        try:
            await asyncio.sleep(self.delay_s)
            return await super().completions(request)
        finally:
            self.in_flight -= 1


@asynccontextmanager
async def app_with_model(
    llm: ScriptedOpenAI,
    settings: Settings,
    fake_superset: FakeSuperset | None,
    **settings_update: Any,
) -> AsyncIterator[httpx.AsyncClient]:
    """The app on a live port, its model ``llm`` behind the real client; Superset faked unless
    ``fake_superset`` is None (the sandbox's, from the settings' environments file)."""
    with LiveServer(llm.app) as llm_server:
        app_settings = settings.model_copy(
            update={
                "llm_base_url": f"{llm_server.url}/v1",
                "llm_model": "scripted",
                "llm_api_key": SecretStr("sk-test-secret"),
                **settings_update,
            }
        )
        transport = RoutingTransport(fake_superset) if fake_superset else None
        app = create_app(app_settings, superset_transport=transport)
        with LiveServer(app) as server:
            async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
                yield client


async def ask(
    client: httpx.AsyncClient, auth: AuthHeaders, text: str, timeout_s: float = 30
) -> list[dict[str, Any]]:
    headers = auth(Role.analyst)
    cid = (await client.post("/api/agent/conversations", headers=headers)).json()["id"]
    sent = await client.post(
        f"/api/agent/conversations/{cid}/messages",
        headers=headers,
        json={"text": text, "uicontext": GENERAL},
    )
    assert sent.status_code == 202, sent.text
    return await read_events(client, cid, headers, timeout_s=timeout_s)


async def test_max_tokens_and_temperature_are_in_the_request_body(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    llm = ScriptedOpenAI(answer("Привет."))
    async with app_with_model(
        llm, settings, fake_superset, llm_max_tokens=256, llm_temperature=0.3
    ) as client:
        events = await ask(client, auth, "привет")
    assert types(events)[-2:] == ["message", "done"]
    (body,) = llm.requests
    # Both names: OpenAI reads max_completion_tokens, Ollama's layer only max_tokens.
    assert body["max_completion_tokens"] == 256
    assert body["max_tokens"] == 256
    assert body["temperature"] == 0.3


async def test_unset_limits_are_left_to_the_server(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    llm = ScriptedOpenAI(answer("Привет."))
    async with app_with_model(
        llm, settings, fake_superset, llm_max_tokens=None, llm_temperature=None
    ) as client:
        await ask(client, auth, "привет")
    (body,) = llm.requests
    assert not {"max_tokens", "max_completion_tokens", "temperature"} & set(body)


def test_openai_itself_gets_only_its_current_field(settings: Settings) -> None:
    """Its reasoning models refuse `max_tokens`: the extra field goes to other servers only."""
    openai = settings.model_copy(update={"llm_base_url": "https://api.openai.com/v1"})
    local = settings.model_copy(update={"llm_base_url": "http://127.0.0.1:11434/v1"})
    assert request_body_extras(openai) == {}
    assert request_body_extras(local) == {"max_tokens": 1024}


async def test_a_stream_silent_past_the_chunk_timeout_ends_in_the_agents_error(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    llm = StallingOpenAI(answer("Сейчас отвечу."), stall_s=4.0)
    async with app_with_model(
        llm, settings, fake_superset, llm_stream_chunk_timeout_s=0.5, llm_timeout_s=30.0
    ) as client:
        started = time.monotonic()
        events = await ask(client, auth, "привет", timeout_s=10)
        took = time.monotonic() - started
    assert types(events)[-2:] == ["error", "done"]
    error = events[-2]
    assert error["code"] == "llm_error"
    assert error["message"].startswith("модель недоступна")
    assert took < 3.5  # the chunk timeout ended it, not the stall nor the 30 s request timeout


async def test_a_request_past_the_timeout_is_retried_then_an_error(
    settings: Settings, fake_superset: FakeSuperset, auth: AuthHeaders
) -> None:
    llm = SlowOpenAI(answer("Поздно."), delay_s=3.0)
    async with app_with_model(
        llm, settings, fake_superset, llm_timeout_s=0.5, llm_retries=1
    ) as client:
        events = await ask(client, auth, "привет", timeout_s=15)
    assert types(events)[-2:] == ["error", "done"]
    assert events[-2]["message"].startswith("модель недоступна")
    assert llm.arrived == 2  # the request, and the one retry the setting allows


@pytest.mark.parametrize(("retries", "answered"), [(1, True), (0, False)])
async def test_retries_are_the_setting(
    settings: Settings,
    fake_superset: FakeSuperset,
    auth: AuthHeaders,
    retries: int,
    answered: bool,
) -> None:
    llm = FlakyOpenAI(answer("Со второй попытки."), failures=1)
    async with app_with_model(llm, settings, fake_superset, llm_retries=retries) as client:
        events = await ask(client, auth, "привет")
    assert llm.seen == (2 if answered else 1)
    if answered:
        assert events[-2]["text"].startswith("Со второй попытки")
    else:
        assert events[-2]["code"] == "llm_error"


def _review_script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
    return {"text": '{"findings": []}'}


@pytest.fixture
async def sandbox_settings(sandbox: Sandbox, tmp_path: Path) -> Settings:
    """Tasks read Superset with clients of their own: validations need the real sandbox."""
    settings = make_settings(tmp_path / "app", sandbox.settings.environments_file.resolve())
    await seed_users(settings)
    return settings


@pytest.mark.parametrize(("concurrency", "most"), [(1, 1), (2, 2)])
async def test_background_model_calls_take_turns(
    sandbox_settings: Settings, concurrency: int, most: int
) -> None:
    """Two validations started together, each ending in the model's review: with concurrency 1
    the endpoint never holds both requests at once; with 2 it does (so the test can fail)."""
    llm = SlowOpenAI(_review_script, delay_s=4.0)
    headers = {
        "Authorization": "Bearer "
        + issue_token(sandbox_settings, Principal(username="analyst", role=Role.analyst))
    }
    async with app_with_model(
        llm, sandbox_settings, None, llm_background_concurrency=concurrency
    ) as client:
        found = await client.get("/api/dashboards", params={"env_id": ENV}, headers=headers)
        titles = {item["title"]: item["id"] for item in found.json()["items"]}
        started = [
            await client.post(
                f"/api/dashboards/{titles[title]}/validate", params={"env_id": ENV}, headers=headers
            )
            for title in ("Отчёт по энергопотреблению", "Energy KPIs")
        ]
        assert [one.status_code for one in started] == [202, 202], [s.text for s in started]
        tasks = [await _finished(client, headers, one.json()["id"]) for one in started]
    assert [task["status"] for task in tasks] == ["succeeded"] * 2, [t["error"] for t in tasks]
    assert [task["result"]["review"] for task in tasks] == [REVIEW_DONE] * 2
    assert llm.arrived == 2
    assert llm.most_at_once == most


async def _finished(
    client: httpx.AsyncClient, headers: dict[str, str], task_id: str
) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while True:
        task: dict[str, Any] = (await client.get(f"/api/tasks/{task_id}", headers=headers)).json()
        if task["status"] in ("succeeded", "failed", "cancelled"):
            return task
        assert time.monotonic() < deadline, task
        await asyncio.sleep(0.2)


def test_the_eval_waits_as_long_as_the_model_settings_say(settings: Settings) -> None:
    """Two model requests with their retries and a tool call, never under 120 s."""
    model = settings.model_copy(update={"llm_base_url": "http://127.0.0.1:11434/v1"})
    cpu = model.model_copy(update={"llm_timeout_s": 300.0, "llm_retries": 1})
    assert turn_timeout_s(settings) == 120.0  # the offline planner
    assert turn_timeout_s(model) == 2 * 120.0 * 2 + model.tool_timeout_s
    assert turn_timeout_s(cpu) == 2 * 300.0 * 2 + cpu.tool_timeout_s
    quick = model.model_copy(update={"llm_timeout_s": 5.0, "llm_retries": 0})
    assert turn_timeout_s(quick) == 120.0


SLOW_SCENARIO = """
scenarios:
  - id: slow-model
    kind: context
    role: analyst
    context: {route: /settings}
    message: что ты умеешь?
    expect:
      answer_contains: [окружени]
"""


def test_sstools_eval_grades_the_apps_own_timeout_of_a_slow_model(
    tmp_path: Path, fake_superset: FakeSuperset
) -> None:
    """A model slower than SSTOOLS_LLM_TIMEOUT_S: the run ends in the app's llm_error, which the
    report names, rather than in the harness waiting out its own limit."""
    scenarios = tmp_path / "slow.yaml"
    scenarios.write_text(SLOW_SCENARIO, encoding="utf-8")
    llm = SlowOpenAI(answer("Я умею многое."), delay_s=3.0)
    with LiveServer(llm.app) as llm_server:
        environ = {
            **os.environ,
            "SSTOOLS_ENVIRONMENTS_FILE": str(environments_for(tmp_path, fake_superset)),
            "SSTOOLS_LLM_BASE_URL": f"{llm_server.url}/v1",
            "SSTOOLS_LLM_MODEL": "scripted",
            "SSTOOLS_LLM_TIMEOUT_S": "0.5",
            "SSTOOLS_LLM_RETRIES": "0",
            "SSTOOLS_ROUTER": "bm25",  # no embedding model to load in the child process
        }
        started = time.monotonic()
        done = run_sstools(tmp_path, environ, "eval", "--scenarios", str(scenarios), "--json")
        took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    (result,) = json.loads(done.stdout)["results"]
    assert result["status"] == "failed"
    assert result["reasons"][0].startswith("error llm_error: модель недоступна")
    assert llm.arrived == 1  # SSTOOLS_LLM_RETRIES=0: no second attempt
    assert took < 60
