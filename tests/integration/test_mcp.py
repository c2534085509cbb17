"""The MCP face on the real sandbox, driven over real HTTP by the official MCP client.

Reads by role with their annotations; a write asked by a host that can ask its person
(elicitation) applies once on «accept» and not at all on «decline»; a host that cannot ask gets
the request's link, and in prod the requester's own approval there is the first of two. Every
change is measured in Superset itself, and the environment is put back after.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.context import RequestContext
from mcp.shared.exceptions import McpError
from sqlalchemy import select

from sstools.app import create_app
from sstools.auth.personal_tokens import create_token, revoke_token
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.storage.models import AuditEntry
from sstools.testing import LiveServer
from tests.conftest import AuthHeaders, second_engineer
from tests.integration.deploy_support import Superset, kept_as_it_was

EDIT = "/* edited by hand while the MCP host asked */"
REPORT_IN_DEV = 10  # «Отчёт по энергопотреблению» in ss-dev


@pytest.fixture(scope="module")
def live(settings: Settings) -> Any:
    app = create_app(settings)
    with LiveServer(app) as server:
        yield server.url, app


async def _token(app: Any, username: str, name: str) -> str:
    async with app.state.services.sessions() as session:
        await revoke_token(session, username, name)
        token = await create_token(session, username, name)
    assert token is not None
    return token


Answer = types.ElicitResult


@asynccontextmanager
async def host(
    url: str, token: str, *, answers: list[str] | None = None, asked: list[str] | None = None
) -> AsyncIterator[ClientSession]:
    """An MCP host signed in with ``token``; with ``answers`` it can ask its person and answers
    each elicitation with the next one (the messages it was shown go to ``asked``)."""

    async def elicit(
        context: RequestContext[ClientSession, Any], params: types.ElicitRequestParams
    ) -> Answer:
        assert answers is not None
        assert asked is not None
        asked.append(params.message)
        action = answers.pop(0)
        return Answer(action=action, content={"confirm": True} if action == "accept" else None)

    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(120)) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write, _),
        ClientSession(
            read, write, elicitation_callback=elicit if answers is not None else None
        ) as session,
    ):
        await session.initialize()
        yield session


def _text(result: types.CallToolResult) -> str:
    return "\n".join(one.text for one in result.content if isinstance(one, types.TextContent))


async def _css(superset: Superset, env_id: str, dashboard_id: int) -> str | None:
    body = await superset(env_id).get_json(f"/api/v1/dashboard/{dashboard_id}")
    css: str | None = body["result"].get("css")
    return css


async def _target_id(client: httpx.AsyncClient, auth: AuthHeaders, env_id: str) -> int:
    body = {
        "dashboard_ids": [REPORT_IN_DEV],
        "source": {"env_id": "ss-dev"},
        "target_env_id": env_id,
    }
    plan = (await client.post("/api/deploy/plan", json=body, headers=auth(Role.analyst))).json()
    return int(plan["dashboards"][0]["target_id"])


async def _wait_done(session: ClientSession, task_id: str) -> dict[str, Any]:
    for _ in range(240):
        result = await session.call_tool("get_task_status", {"task_id": task_id, "detail": True})
        data = result.structuredContent or {}
        text = _text(result)
        if any(
            f'"status": "{end}"' in text or f'"status":"{end}"' in text
            for end in ("succeeded", "failed", "cancelled")
        ):
            return {"text": text, **data}
        await asyncio.sleep(0.5)
    raise AssertionError(f"task {task_id} did not end")


async def test_tools_by_role_with_annotations_and_errors_in_words(live: Any) -> None:
    url, app = live
    analyst = await _token(app, "analyst", "mcp-test")
    engineer = await _token(app, "engineer", "mcp-test")
    async with host(url, analyst) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert "deploy_dashboard" not in tools
        assert "run_backup" not in tools
        search = tools["search_dashboards"]
        assert search.annotations is not None
        assert search.annotations.readOnlyHint is True
        assert "env_id" in search.inputSchema["properties"]
        found = await session.call_tool(
            "search_dashboards", {"env_id": "ss-dev", "query": "энерго"}
        )
        assert not found.isError, _text(found)
        assert "Отчёт по энергопотреблению" in _text(found)
        with pytest.raises(McpError, match="no_such_tool"):
            await session.call_tool("no_such_tool", {})
        bad = await session.call_tool("get_task_status", {"task_id": 5})
        assert bad.isError
        assert "task_id" in _text(bad)
        denied = await session.call_tool(
            "deploy_dashboard", {"env_id": "ss-dev", "dashboard_id": 10, "target_env_id": "staging"}
        )
        assert denied.isError
        assert "доступно роли «инженер»; у вас — «аналитик»" in _text(denied)
    async with host(url, engineer) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        deploy = tools["deploy_dashboard"].annotations
        assert deploy is not None
        assert (deploy.readOnlyHint, deploy.destructiveHint, deploy.idempotentHint) == (
            False,
            True,
            False,
        )
        assert "run_backup" not in tools  # an admin's
    async with app.state.services.sessions() as session:
        await revoke_token(session, "analyst", "mcp-test")
    async with httpx.AsyncClient() as plain:
        refused = await plain.post(
            f"{url}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={
                "Authorization": f"Bearer {analyst}",
                "Accept": "application/json, text/event-stream",
            },
        )
    assert refused.status_code == 401
    assert "токен доступа не найден или отозван" in refused.json()["detail"]


async def test_a_write_asked_through_the_host_applies_once_on_accept_and_never_on_decline(
    live: Any, client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset
) -> None:
    url, app = live
    token = await _token(app, "engineer", "mcp-write")
    staging_id = await _target_id(client, auth, "staging")
    deploy = {"env_id": "ss-dev", "dashboard_id": REPORT_IN_DEV, "target_env_id": "staging"}
    async with kept_as_it_was(superset, "staging", staging_id) as staging:
        await staging.put_json(f"/api/v1/dashboard/{staging_id}", {"css": EDIT})
        asked: list[str] = []
        async with host(url, token, answers=["decline", "accept"], asked=asked) as session:
            declined = await session.call_tool("deploy_dashboard", deploy)
            assert not declined.isError, _text(declined)
            assert "Ничего не изменено" in _text(declined)
            await asyncio.sleep(1)  # had the decline started anything, it would show
            assert await _css(superset, "staging", staging_id) == EDIT
            accepted = await session.call_tool("deploy_dashboard", deploy)
            assert not accepted.isError, _text(accepted)
            data = accepted.structuredContent or {}
            assert (data.get("status"), bool(data.get("task_id"))) == ("approved", True), data
            done = await _wait_done(session, str(data["task_id"]))
        assert "succeeded" in done["text"]
        assert await _css(superset, "staging", staging_id) != EDIT  # dev's version is there
    # The person saw the plan: the objects by name, the target and its stage, the impact.
    assert len(asked) == 2
    assert "Отчёт по энергопотреблению" in asked[1]
    assert "staging" in asked[1].lower()
    assert "стадия: тестирование" in asked[1]
    assert "изменён" in asked[1]
    async with app.state.services.sessions() as session:
        rows = list(
            await session.scalars(select(AuditEntry).where(AuditEntry.action == "tool_call"))
        )
    faces = [row for row in rows if row.detail.get("face") == "mcp"]
    assert faces, "the MCP face's calls are marked in the audit"


async def test_a_host_that_cannot_ask_gets_the_link_and_prod_needs_a_second_person(
    live: Any, client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset, settings: Settings
) -> None:
    url, app = live
    token = await _token(app, "engineer", "mcp-prod")
    prod_id = await _target_id(client, auth, "prod")
    deploy = {"env_id": "ss-dev", "dashboard_id": REPORT_IN_DEV, "target_env_id": "prod"}
    requester = {"Authorization": f"Bearer {token}"}
    async with kept_as_it_was(superset, "prod", prod_id) as prod:
        await prod.put_json(f"/api/v1/dashboard/{prod_id}", {"css": EDIT})
        async with host(url, token) as session:
            held = await session.call_tool("deploy_dashboard", deploy)
            data = held.structuredContent or {}
            assert data.get("status") == "approval_needed", _text(held)
            request_id = str(data["request_id"])
            assert data["link"] == f"{url}/approvals/{request_id}"
            async with httpx.AsyncClient(base_url=url, timeout=120) as web:
                listed = (await web.get("/api/approvals", headers=requester)).json()
                mine = [one for one in listed["approvals"] if one["id"] == request_id]
                assert mine
                assert mine[0]["can_approve"] is True
                second = await second_engineer(settings)
                early = await web.post(
                    f"/api/approvals/{request_id}", json={"decision": "approve"}, headers=second
                )
                assert early.status_code == 403  # the requester's own word comes first
                first = await web.post(
                    f"/api/approvals/{request_id}", json={"decision": "approve"}, headers=requester
                )
                assert first.status_code == 200, first.text
                assert first.json()["status"] == "awaiting_second"
                await asyncio.sleep(1)
                assert await _css(superset, "prod", prod_id) == EDIT  # one person: nothing yet
                racing = await asyncio.gather(
                    *(
                        web.post(
                            f"/api/approvals/{request_id}",
                            json={"decision": "approve"},
                            headers=h,
                        )
                        for h in (second, second, auth(Role.admin))
                    )
                )
            assert sorted(r.status_code for r in racing) == [200, 409, 409], [
                r.text for r in racing
            ]
            followed = await session.call_tool("get_task_status", {"task_id": request_id})
            view = followed.structuredContent or {}
            assert (view.get("status"), bool(view.get("task_id"))) == ("approved", True), view
            done = await _wait_done(session, str(view["task_id"]))
        assert "succeeded" in done["text"]
        assert await _css(superset, "prod", prod_id) != EDIT


async def test_sstools_mcp_serves_the_same_over_stdio_signed_in_by_its_token(live: Any) -> None:
    url, app = live
    token = await _token(app, "analyst", "mcp-stdio")
    command = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sstools", "mcp"],
        env={**os.environ, "SSTOOLS_URL": url, "SSTOOLS_TOKEN": token},
    )
    async with stdio_client(command) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = {tool.name for tool in (await session.list_tools()).tools}
        found = await session.call_tool(
            "search_dashboards", {"env_id": "ss-dev", "query": "энерго"}
        )
    assert "search_dashboards" in names
    assert "deploy_dashboard" not in names
    assert "Отчёт по энергопотреблению" in _text(found)
    unsigned = await anyio.run_process(
        [sys.executable, "-m", "sstools", "mcp"],
        env={**os.environ, "SSTOOLS_URL": url, "SSTOOLS_TOKEN": ""},
        check=False,
    )
    assert unsigned.returncode == 2
    assert b"SSTOOLS_TOKEN" in unsigned.stderr
    assert unsigned.stdout == b""  # stdout is the protocol's


INSPECTOR = Path(__file__).parents[1] / "inspector" / "node_modules" / ".bin" / "mcp-inspector"


async def test_an_independent_client_the_mcp_inspector_lists_and_calls_the_tools(
    live: Any, tmp_path: Path
) -> None:
    if not INSPECTOR.exists():
        pytest.skip("the MCP Inspector's CLI is not installed: make inspector")
    url, app = live
    token = await _token(app, "engineer", "mcp-inspector")

    async def inspector(*method: str) -> Any:
        ran = await anyio.run_process(
            [
                str(INSPECTOR),
                "--cli",
                f"{url}/mcp",
                "--transport",
                "http",
                "--header",
                f"Authorization: Bearer {token}",
                *method,
            ],
            env={**os.environ, "HOME": str(tmp_path)},  # its catalogue of servers goes there
            check=False,
        )
        assert ran.returncode == 0, ran.stderr.decode()
        return json.loads(ran.stdout)

    listed = await inspector("--method", "tools/list")
    tools = {tool["name"]: tool for tool in listed["tools"]}
    assert tools["deploy_dashboard"]["annotations"]["readOnlyHint"] is False
    assert tools["list_environments"]["annotations"]["readOnlyHint"] is True
    called = await inspector("--method", "tools/call", "--tool-name", "list_environments")
    assert not called.get("isError")
    assert "ss-dev" in called["content"][0]["text"]


async def test_a_session_is_its_opener_s_alone(live: Any) -> None:
    url, app = live
    owner = await _token(app, "engineer", "mcp-session")
    other = await _token(app, "analyst", "mcp-session")
    accept = {"Accept": "application/json, text/event-stream"}
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    async with httpx.AsyncClient(base_url=url, headers=accept, timeout=60) as plain:
        opened = await plain.post(
            "/mcp", json=initialize, headers={"Authorization": f"Bearer {owner}"}
        )
        assert opened.status_code == 200, opened.text
        session_id = opened.headers["mcp-session-id"]
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        borrowed = await plain.post(
            "/mcp",
            json=listing,
            headers={"Authorization": f"Bearer {other}", "Mcp-Session-Id": session_id},
        )
    assert borrowed.status_code == 404
    assert borrowed.json()["detail"] == "такой сессии MCP у вас нет: начните новую"


async def test_sql_over_mcp_has_the_chat_s_verdicts_a_dml_is_a_held_write(
    live: Any, client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    url, app = live
    databases = (
        await client.get("/api/databases?env_id=ss-dev", headers=auth(Role.analyst))
    ).json()
    demo = int(next(db["id"] for db in databases if db["name"] == "Демо-данные"))
    count = "select count(*) as n from regions"
    wipe = {"env_id": "ss-dev", "database_id": demo, "sql": "delete from regions"}
    async with host(url, await _token(app, "analyst", "mcp-sql")) as session:
        before = _text(await session.call_tool("superset_execute_sql", {**wipe, "sql": count}))
        refused = await session.call_tool("superset_execute_sql", wipe)
        assert refused.isError
        assert "«инженер»" in _text(refused)
    async with host(
        url, await _token(app, "engineer", "mcp-sql"), answers=["decline"], asked=[]
    ) as session:
        declined = await session.call_tool("superset_execute_sql", wipe)
        after = _text(await session.call_tool("superset_execute_sql", {**wipe, "sql": count}))
    assert "Ничего не изменено" in _text(declined)
    assert after == before  # the rows are all there
    assert json.loads(before)["rows"][0][0] > 0
