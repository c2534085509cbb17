"""Deploy test support: Superset clients per environment, environments put back as they were,
waiting for a task, a plan applied and followed to its end, and the agent's card on a live server
(a scripted model that follows its task, the card asked for, decided, and what the run said)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import yaml
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.domain.deploy import import_bundle
from sstools.git_store import normalise
from sstools.sandbox import Sandbox
from sstools.superset import SupersetClient
from sstools.testing import LiveServer, ScriptedChatModel
from tests.conftest import AuthHeaders, second_engineer
from tests.support import read_events, start_conversation

Superset = Callable[[str], SupersetClient]
SECOND_CONNECTION = "Склад DWH"  # a second connection to the same demo data, in staging
REPORT = "Отчёт по энергопотреблению"
# The page of «Отчёт по энергопотреблению» in ss-dev, as the agent is asked from it.
REPORT_PAGE = {
    "contextVersion": 1,
    "objectType": "dashboard",
    "objectId": "10",
    "objectName": REPORT,
    "envId": "ss-dev",
    "route": "/dashboards/10",
}


@pytest.fixture
async def superset(sandbox: Sandbox) -> AsyncIterator[Superset]:
    """``superset("prod")``: a service-account client of that environment."""
    clients: dict[str, SupersetClient] = {}

    def get(env_id: str) -> SupersetClient:
        if env_id not in clients:
            env = next(env for env in sandbox.environments() if env.id == env_id)
            clients[env_id] = SupersetClient(env, timeout_s=60)
        return clients[env_id]

    yield get
    await asyncio.gather(*(client.aclose() for client in clients.values()))


async def export_all(client: SupersetClient) -> tuple[dict[str, bytes], set[str], set[str]]:
    """Every dashboard's files, and the dashboard and chart UUIDs the environment holds."""
    dashboards = await client.list_all("dashboard", columns=["id", "uuid"])
    charts = await client.list_all("chart", columns=["id", "uuid"])
    bundle = await client.export_dashboards([int(row["id"]) for row in dashboards])
    return (
        normalise(bundle),
        {str(row["uuid"]) for row in dashboards},
        {str(row["uuid"]) for row in charts},
    )


async def delete_by_uuid(client: SupersetClient, resource: str, uuids: set[str]) -> None:
    for uuid in uuids:
        query = {"columns": ["id"], "filters": [{"col": "uuid", "opr": "eq", "value": uuid}]}
        for row in (await client.get_json(f"/api/v1/{resource}/", query=query))["result"]:
            await client.delete(f"/api/v1/{resource}/{row['id']}")


def _importable(files: dict[str, bytes], changed: set[str]) -> dict[str, bytes]:
    """The changed files with what their import needs: every chart (a dashboard imported without
    one of its charts loses it), dataset and database; not a chart whose dataset is gone (Superset
    refuses it: the archive's broken chart)."""
    orphans = {
        path
        for path, content in files.items()
        if path.startswith("charts/") and "dataset_uuid" not in yaml.safe_load(content)
    }
    needed = {path for path in files if path.startswith(("datasets/", "databases/", "charts/"))}
    return {path: files[path] for path in ((changed & set(files)) | needed) - orphans}


Restore = Callable[[str], Awaitable[None]]


@pytest.fixture
async def restore(superset: Superset) -> AsyncIterator[Restore]:
    """``await restore("staging")`` before changing it: put back as it was after the test."""
    saved: dict[str, tuple[dict[str, bytes], set[str], set[str]]] = {}

    async def remember(env_id: str) -> None:
        saved[env_id] = await export_all(superset(env_id))

    yield remember
    for env_id, exported in saved.items():
        await put_back(superset(env_id), exported)


async def put_back(
    client: SupersetClient, exported: tuple[dict[str, bytes], set[str], set[str]]
) -> None:
    """The environment as :func:`export_all` found it: new dashboards and charts deleted, the
    changed files imported again."""
    files, dashboards, charts = exported
    now = await export_all(client)
    await delete_by_uuid(client, "dashboard", now[1] - dashboards)
    await delete_by_uuid(client, "chart", now[2] - charts)
    changed = {path for path, content in files.items() if now[0].get(path) != content}
    if changed:
        await import_bundle(client, _importable(files, changed))


async def wait_for_task(
    api: httpx.AsyncClient, auth: AuthHeaders, task_id: str, timeout_s: float = 180
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        response = await api.get(f"/api/tasks/{task_id}", headers=auth(Role.analyst))
        assert response.status_code == 200, response.text
        task: dict[str, Any] = response.json()
        if task["status"] in ("succeeded", "failed", "cancelled"):
            return task
        assert time.monotonic() < deadline, f"task still {task['status']}: {task}"
        await asyncio.sleep(0.2)


async def started_task(api: httpx.AsyncClient, settings: Settings, answer: httpx.Response) -> str:
    """The id of the task a write started. A write into prod is held for a second person (202
    with the request and its link, nothing written): a second engineer approves it, as a team
    would, and the write runs then."""
    assert answer.status_code == 202, answer.text
    body: dict[str, Any] = answer.json()
    if "link" not in body:
        return str(body["id"])
    assert body["status"] == "awaiting_second", body
    decided = await api.post(
        f"/api/write-requests/{body['id']}",
        json={"decision": "approve"},
        headers=await second_engineer(settings),
    )
    assert decided.status_code == 200, decided.text
    return str(decided.json()["task_id"])


@dataclass(frozen=True)
class Deploys:
    """A sandbox deploy test's rig: the app's API as the suite's people, each environment's
    Superset client, and an environment put back as it was after the test."""

    api: httpx.AsyncClient
    auth: AuthHeaders
    settings: Settings
    superset: Superset
    restore: Restore

    async def changing(self, env_id: str) -> tuple[SupersetClient, SupersetClient]:
        """ss-dev's client and ``env_id``'s, which is put back as it was after the test."""
        await self.restore(env_id)
        return self.superset("ss-dev"), self.superset(env_id)

    async def plan(self, body: dict[str, Any]) -> dict[str, Any]:
        """The engineer's plan of ``body`` (answered 200)."""
        response = await self.api.post(
            "/api/deploy/plan", json=body, headers=self.auth(Role.engineer)
        )
        assert response.status_code == 200, response.text
        plan: dict[str, Any] = response.json()
        return plan

    async def rollback_plan(self, task_id: str) -> dict[str, Any]:
        """The engineer's plan of rolling prod back from that deploy task (answered 200)."""
        response = await self.api.post(
            f"/api/deploy/{task_id}/rollback/plan",
            json={"env_id": "prod"},
            headers=self.auth(Role.engineer),
        )
        assert response.status_code == 200, response.text
        plan: dict[str, Any] = response.json()
        return plan

    async def applied(self, route: str, body: Any) -> dict[str, Any]:
        """The engineer's write to ``route`` (a plan's body with its digest) started, a second
        approval given where prod holds it (:func:`started_task`), and the task once it has
        ended."""
        started = await self.api.post(route, json=body, headers=self.auth(Role.engineer))
        return await wait_for_task(
            self.api, self.auth, await started_task(self.api, self.settings, started)
        )


@pytest.fixture
def deploys(
    client: httpx.AsyncClient,
    auth: AuthHeaders,
    settings: Settings,
    superset: Superset,
    restore: Restore,
) -> Deploys:
    return Deploys(client, auth, settings, superset, restore)


async def superset_dashboard_id(client: SupersetClient, title: str) -> int:
    """The id of the dashboard titled ``title`` in that Superset."""
    page = await client.search_dashboards(title)
    return next(item.id for item in page.items if item.title == title)


Script = Callable[[list[BaseMessage], list[str]], AIMessage]


def call_then_follow(tool: str, args: dict[str, Any]) -> Script:
    """A scripted model: call ``tool`` with ``args``, then ask for its task's status until it
    has ended (as a model would), and say how it ended."""

    def script(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        last = messages[-1]
        if not isinstance(last, ToolMessage):
            call = {"name": tool, "args": args, "id": f"call_{tool}"}
            return AIMessage(content="", tool_calls=[call])
        result = json.loads(str(last.content))
        if result.get("status") in ("succeeded", "failed", "cancelled") or "status" not in result:
            return AIMessage(content=f"Задача завершилась: {result.get('status', result)}")
        time.sleep(0.5)  # a model's own pause between two looks at a task
        call_id = f"call_status_{len(messages)}"
        status = {"name": "get_task_status", "args": {"task_id": result["id"]}, "id": call_id}
        return AIMessage(content="", tool_calls=[status])

    return script


# Deploy the page's dashboard to prod, then follow the task to its end.
deploy_then_follow = call_then_follow("deploy_dashboard", {"target_env_id": "prod"})


@asynccontextmanager
async def live_agent(settings: Settings, script: Script) -> AsyncIterator[httpx.AsyncClient]:
    """The app with that scripted model on a live server (the card waits in a real run)."""
    app = create_app(settings, chat_model=ScriptedChatModel(script=script))
    with LiveServer(app) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as live:
            yield live


async def card_for(
    live: httpx.AsyncClient,
    headers: dict[str, str],
    text: str,
    uicontext: dict[str, Any],
    timeout_s: float = 20,
) -> tuple[str, dict[str, Any]]:
    """``text`` sent in a new conversation from ``uicontext``: its id and the card its run
    stopped at."""
    cid = await start_conversation(live, headers, text, uicontext)
    events = await read_events(live, cid, headers, timeout_s=timeout_s)
    assert events[-1]["type"] == "confirm_required", events
    return cid, events[-1]


async def decided(
    live: httpx.AsyncClient,
    headers: dict[str, str],
    cid: str,
    card: dict[str, Any],
    decision: str = "approve",
    timeout_s: float = 120,
) -> list[dict[str, Any]]:
    """``decision`` on the card (answered 200), then the run's events after it up to its end."""
    answered = await live.post(
        f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}",
        json={"decision": decision},
        headers=headers,
    )
    assert answered.status_code == 200, answered.text
    return await read_events(live, cid, headers, last_event_id=card["_id"], timeout_s=timeout_s)


def assert_loud_prod_card(decision: dict[str, Any]) -> None:
    """A prod write's card as AGGRD has it: dangerous, destructive, and the prompt says prod."""
    assert (decision["level"], decision["tone"], decision["stage"]) == (
        "dangerous",
        "destructive",
        "prod",
    )
    assert "ПРОДУКТИВ" in decision["prompt"]


def followed_to_success(events: list[dict[str, Any]], tool: str) -> list[dict[str, Any]]:
    """The run's tool results, having checked ``tool`` ran first, ok, and the model then said
    its task succeeded."""
    results = [event for event in events if event["type"] == "tool_result"]
    assert results[0]["tool"] == tool
    assert results[0]["outcome"] == "ok", results[0]
    assert "Задача завершилась: succeeded" in events[-2].get("text", ""), events[-3:]
    return results


@pytest.fixture
async def second_connection(sandbox: Sandbox, superset: Superset) -> AsyncIterator[int]:
    """Staging with a second connection to the demo data (its id) beside the seeded one;
    afterwards staging as it was and the second connection deleted."""
    staging = superset("staging")
    saved = await export_all(staging)
    uri = f"sqlite:///{sandbox.root / 'demo' / 'demo.db'}"  # the file the first one reads
    body = await staging.post_json(
        "/api/v1/database/", {"database_name": SECOND_CONNECTION, "sqlalchemy_uri": uri}
    )
    try:
        yield int(body["id"])
    finally:
        await put_back(staging, saved)
        await staging.delete(f"/api/v1/database/{body['id']}")


@asynccontextmanager
async def kept_as_it_was(superset: Superset, env_id: str, dashboard_id: int) -> AsyncIterator[Any]:
    """``env_id`` as it was, afterwards: every file of its export, then the dashboard's raw CSS
    (an import writes "" where there was null)."""
    client = superset(env_id)
    exported = await export_all(client)
    css = (await client.get_json(f"/api/v1/dashboard/{dashboard_id}"))["result"].get("css")
    try:
        yield client
    finally:
        await put_back(client, exported)
        await client.put_json(f"/api/v1/dashboard/{dashboard_id}", {"css": css})
        after = (await client.get_json(f"/api/v1/dashboard/{dashboard_id}"))["result"].get("css")
        assert after == css


def superset_pid(sandbox: Sandbox, env_id: str) -> int:
    (pid,) = (status.pid for status in sandbox.status() if status.env_id == env_id)
    assert pid is not None, f"{env_id} is not running"
    return pid


@contextmanager
def frozen(pid: int) -> Iterator[None]:
    """That Superset (:func:`superset_pid`, asked beforehand: it takes a moment) paused with
    SIGSTOP and resumed after: a request to it waits meanwhile, so a task writing it is held
    where it is, in the middle of its step."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)
