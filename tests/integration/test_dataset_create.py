"""Creating datasets on the real sandbox: physical, virtual, and refusals a person can act on.

Every object made here is uniquely named and deleted afterwards (the sandbox is shared).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import sqlite3
import tempfile
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.superset.errors import SupersetNotFound
from sstools.testing import LiveServer, ScriptedChatModel
from tests.conftest import AuthHeaders, second_engineer
from tests.integration.deploy_support import Superset
from tests.support import read_events

ENV = "ss-dev"


async def _demo_database(client: httpx.AsyncClient, headers: dict[str, str]) -> int:
    databases = (await client.get(f"/api/databases?env_id={ENV}", headers=headers)).json()
    return int(next(db["id"] for db in databases if db["name"] == "Демо-данные"))


@pytest.fixture
async def cleanup(superset: Superset) -> AsyncIterator[list[str]]:
    """Superset paths (``dataset/12``) to delete after the test, whatever it asserted."""
    paths: list[str] = []
    yield paths
    for path in reversed(paths):
        with contextlib.suppress(SupersetNotFound):  # already gone: nothing to put back
            await superset(ENV).delete(f"/api/v1/{path}")


async def _create(
    client: httpx.AsyncClient, auth: AuthHeaders, body: dict[str, Any]
) -> httpx.Response:
    return await client.post(
        "/api/datasets", json={"env_id": ENV, **body}, headers=auth(Role.engineer)
    )


async def test_physical_dataset_is_created_and_visible_in_superset(
    client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset, cleanup: list[str]
) -> None:
    engineer = auth(Role.engineer)
    database_id = await _demo_database(client, engineer)
    table = f"h7_probe_{uuid.uuid4().hex[:8]}"

    async def sql(statement: str) -> None:
        response = await client.post(
            f"/api/sql/execute?env_id={ENV}",
            headers=engineer,
            json={"database_id": database_id, "sql": statement},
        )
        assert response.status_code == 200, response.text

    await sql(f"create table {table} (region text, kwh real)")
    try:
        body = {"database_id": database_id, "schema": "main", "table": table}
        created = await _create(client, auth, body)
        assert created.status_code == 201, created.text
        new = created.json()
        cleanup.append(f"dataset/{new['id']}")
        assert new["kind"] == "physical"
        assert new["name"] == table
        seen = (await superset(ENV).get_json(f"/api/v1/dataset/{new['id']}"))["result"]
        assert seen["table_name"] == table
        assert seen["schema"] == "main"
        assert seen["sql"] in (None, "")
        assert {column["column_name"] for column in seen["columns"]} == {"region", "kwh"}

        again = await _create(client, auth, body)
        assert again.status_code == 409, again.text
        assert table in again.json()["detail"]
    finally:
        await sql(f"drop table {table}")


async def test_virtual_dataset_is_created_with_its_query_and_columns(
    client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset, cleanup: list[str]
) -> None:
    database_id = await _demo_database(client, auth(Role.engineer))
    name = f"h7_virtual_{uuid.uuid4().hex[:8]}"
    query = "select region, population_thousands from regions where population_thousands > 0"
    created = await _create(
        client, auth, {"database_id": database_id, "schema": "main", "sql": query, "name": name}
    )
    assert created.status_code == 201, created.text
    new = created.json()
    cleanup.append(f"dataset/{new['id']}")
    assert new["kind"] == "virtual"
    seen = (await superset(ENV).get_json(f"/api/v1/dataset/{new['id']}"))["result"]
    assert seen["table_name"] == name
    assert seen["sql"] == query
    assert [column["column_name"] for column in seen["columns"]] == [
        "region",
        "population_thousands",
    ]
    # Analysts read datasets; they do not make them.
    refused = await client.post(
        "/api/datasets",
        json={"env_id": ENV, "database_id": database_id, "sql": query, "name": name + "_x"},
        headers=auth(Role.analyst),
    )
    assert refused.status_code == 403


@pytest.mark.parametrize(
    "query",
    [
        "delete from regions",
        "select 1; drop table regions",
        "update regions set population_thousands = 0",
        "/* looks like a read */ insert into regions values ('x', 'y', 1)",
    ],
)
async def test_sql_that_writes_is_refused_and_nothing_is_created(
    client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset, query: str
) -> None:
    database_id = await _demo_database(client, auth(Role.engineer))
    name = f"h7_dml_{uuid.uuid4().hex[:8]}"
    response = await _create(client, auth, {"database_id": database_id, "sql": query, "name": name})
    assert response.status_code == 422, response.text
    error = response.json()["detail"][0]
    assert error["loc"] == ["body", "sql"]
    assert "пишет" in error["msg"] or "один запрос" in error["msg"]
    rows = await superset(ENV).list_all(
        "dataset", columns=["id"], filters=[{"col": "table_name", "opr": "eq", "value": name}]
    )
    assert rows == []
    # the data is untouched
    count = await client.post(
        f"/api/sql/execute?env_id={ENV}",
        headers=auth(Role.analyst),
        json={"database_id": database_id, "sql": "select count(*) as n from regions"},
    )
    assert count.status_code == 200, count.text
    assert count.json()["rows"][0]["n"] > 0


async def test_refusals_name_the_field_a_person_must_fix(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    database_id = await _demo_database(client, auth(Role.engineer))
    missing = await _create(
        client, auth, {"database_id": database_id, "schema": "main", "table": "no_such_table_h7"}
    )
    assert missing.status_code == 422, missing.text
    error = missing.json()["detail"][0]
    assert error["loc"] == ["body", "table"]
    assert "no_such_table_h7" in error["msg"]

    bad_schema = await _create(
        client, auth, {"database_id": database_id, "schema": "nope", "table": "regions"}
    )
    assert bad_schema.status_code == 422
    assert bad_schema.json()["detail"][0]["loc"] == ["body", "schema"]

    duplicate = await _create(
        client, auth, {"database_id": database_id, "schema": "main", "table": "regions"}
    )
    assert duplicate.status_code == 409, duplicate.text
    assert "regions" in duplicate.json()["detail"]

    failing = await _create(
        client,
        auth,
        {"database_id": database_id, "sql": "select no_column from regions", "name": "h7_fail"},
    )
    assert failing.status_code == 422, failing.text
    assert failing.json()["detail"][0]["loc"] == ["body", "sql"]
    assert "no_column" in failing.json()["detail"][0]["msg"]

    no_database = await _create(
        client, auth, {"database_id": 99_999, "schema": "main", "table": "regions"}
    )
    assert no_database.status_code == 422
    assert no_database.json()["detail"][0]["loc"] == ["body", "database_id"]

    neither = await _create(client, auth, {"database_id": database_id, "schema": "main"})
    assert neither.status_code == 422
    assert neither.json()["detail"][0]["loc"] == ["body", "table"]

    unnamed = await _create(client, auth, {"database_id": database_id, "sql": "select 1"})
    assert unnamed.status_code == 422
    assert unnamed.json()["detail"][0]["loc"] == ["body", "name"]


async def test_a_database_that_does_not_answer_is_a_503_naming_the_environment(
    client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset, cleanup: list[str]
) -> None:
    """A database Superset knows but cannot connect to (its file's folder is gone)."""
    folder = Path(tempfile.mkdtemp(prefix="h7_gone_"))
    with sqlite3.connect(folder / "gone.db") as conn:
        conn.execute("create table t (a int)")
    name = f"h7_gone_{uuid.uuid4().hex[:8]}"
    body = await superset(ENV).post_json(
        "/api/v1/database/",
        {"database_name": name, "sqlalchemy_uri": f"sqlite:///{folder / 'gone.db'}"},
    )
    cleanup.append(f"database/{body['id']}")
    shutil.rmtree(folder)
    response = await _create(
        client, auth, {"database_id": body["id"], "schema": "main", "table": "t"}
    )
    assert response.status_code == 503, response.text
    detail = response.json()["detail"]
    assert ENV in detail
    assert name in detail
    assert "не отвечает" in detail


async def test_the_agent_creates_a_dataset_after_the_card_is_approved(
    settings: Settings, auth: AuthHeaders, superset: Superset, cleanup: list[str]
) -> None:
    """superset_create_dataset is a write: a card first, the dataset only once it is approved."""
    name = f"h7_agent_{uuid.uuid4().hex[:8]}"
    dev = superset(ENV)
    database_id = next(db.id for db in await dev.list_databases() if db.name == "Демо-данные")
    args = {"database_id": database_id, "sql": "select region from regions", "name": name}

    def create_then_report(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content=f"Создан: {json.loads(str(messages[-1].content))['id']}")
        call = {"name": "superset_create_dataset", "args": args, "id": "call_create"}
        return AIMessage(content="", tool_calls=[call])

    async def found() -> list[dict[str, Any]]:
        return await dev.list_all(
            "dataset", columns=["id"], filters=[{"col": "table_name", "opr": "eq", "value": name}]
        )

    app = create_app(settings, chat_model=ScriptedChatModel(script=create_then_report))
    headers = auth(Role.engineer)
    context = {"contextVersion": 1, "objectType": "dataset", "objectId": "1", "envId": ENV}
    with LiveServer(app) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as live:
            cid = (await live.post("/api/agent/conversations", headers=headers)).json()["id"]
            await live.post(
                f"/api/agent/conversations/{cid}/messages",
                headers=headers,
                json={"text": "создай датасет", "uicontext": {**context, "route": "/datasets/1"}},
            )
            card = (await read_events(live, cid, headers))[-1]
            assert card["type"] == "confirm_required", card
            assert card["decision"]["tone"] == "info"  # a write to dev
            assert await found() == []  # nothing before the person says yes
            decided = await live.post(
                f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}",
                json={"decision": "approve"},
                headers=headers,
            )
            assert decided.status_code == 200, decided.text
            events = await read_events(live, cid, headers, last_event_id=card["_id"])
    rows = await found()
    assert len(rows) == 1
    cleanup.append(f"dataset/{rows[0]['id']}")
    result = next(event for event in events if event["type"] == "tool_result")
    assert result["outcome"] == "ok"
    message = next(event for event in events if event["type"] == "message")
    assert message["text"].startswith(f"Создан: {rows[0]['id']}")


async def test_a_dataset_in_prod_waits_for_a_second_engineer_and_is_made_once(
    client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset, settings: Settings
) -> None:
    """A new dataset in prod is a write into prod (issue 32 §2): one engineer's request is held,
    nothing is created; a second engineer's approval creates it, once."""
    engineer = auth(Role.engineer)
    databases = (await client.get("/api/databases?env_id=prod", headers=engineer)).json()
    database_id = int(next(db["id"] for db in databases if db["name"] == "Демо-данные"))
    name = f"two_people_{uuid.uuid4().hex[:8]}"
    body = {"env_id": "prod", "database_id": database_id, "sql": "select 1 as one", "name": name}

    async def made() -> list[int]:
        found = await client.get(f"/api/datasets?env_id=prod&q={name}", headers=engineer)
        return [int(one["id"]) for one in found.json()["items"] if one["name"] == name]

    held = await client.post("/api/datasets", json=body, headers=engineer)
    assert held.status_code == 202, held.text
    request = held.json()
    assert (request["status"], request["kind"]) == ("awaiting_second", "dataset")
    assert await made() == []
    second = await second_engineer(settings)
    try:
        answers = await asyncio.gather(
            *(
                client.post(
                    f"/api/write-requests/{request['id']}",
                    json={"decision": "approve"},
                    headers=second,
                )
                for _ in range(3)
            )
        )
        assert sorted(answer.status_code for answer in answers) == [200, 409, 409]
        decided = next(answer.json() for answer in answers if answer.status_code == 200)
        assert (decided["status"], decided["decided_by"]) == ("approved", "engineer2")
        assert len(await made()) == 1
    finally:
        for dataset_id in await made():
            await superset("prod").delete(f"/api/v1/dataset/{dataset_id}")
