"""A deploy's or migration's card lets a person point a source database at another of the
target's connections (issue 25 §2), over real HTTP and SSE with a scripted model: the server
plans the mapped call again and applies exactly that plan; a plan whose database matches none
gives no card and names the target's databases instead."""

from __future__ import annotations

from typing import Any

import pytest

from tests.agent.cards import asked_on_a_dashboard
from tests.agent.deploy_server import DeployServer
from tests.support import types

DEPLOY = ("deploy_dashboard", {"target_env_id": "staging"})
ASKED = "выкати этот дашборд в staging"
TWO_CONNECTIONS = {"db-target": "Демо-данные", "db-dwh": "Склад DWH"}


async def test_a_database_mapped_on_the_card_is_planned_again_and_applied_as_mapped(
    make_agent: Any, deploys: tuple[DeployServer, str]
) -> None:
    server, url = deploys
    server.target_databases = TWO_CONNECTIONS
    async with asked_on_a_dashboard(make_agent, url, DEPLOY, ASKED) as (agent, cid, events):
        card = events[-1]
        assert card["type"] == "confirm_required", events
        rows = [edit for edit in card["decision"]["edits"] if edit["field"] == "database_mapping"]
        assert [(row["label"], row["key"], row["value"]) for row in rows] == [
            ("Подключение в цели для базы «Демо-данные»", "Демо-данные", "Демо-данные")
        ]  # names: the model reads the edited call too, and never a UUID
        assert [choice["label"] for choice in rows[0]["choices"]] == ["Демо-данные", "Склад DWH"]

        answer = await agent.edit(cid, card, {"database_mapping": {"Демо-данные": "Склад DWH"}})
        assert answer.status_code == 200, answer.text
        later = await agent.events_after(cid, card)
        new = later[-1]
        assert new["type"] == "confirm_required", later
        assert new["args"]["database_mapping"] == {"Демо-данные": "Склад DWH"}
        assert new["decision"]["digest"] != card["decision"]["digest"]
        shown = {argument["label"]: argument["value"] for argument in new["decision"]["arguments"]}
        assert shown["Базы данных"] == "«Демо-данные» → «Склад DWH»"  # names, never UUIDs
        assert server.plans[-1]["database_mapping"] == {"Демо-данные": "Склад DWH"}
        assert server.applies == []

        assert (await agent.decide(cid, new["confirmation_id"], "approve")).status_code == 200
        done = await agent.events_after(cid, new)
        assert "done" in types(done)
    assert len(server.applies) == 1
    assert server.applies[0]["database_mapping"] == {"Демо-данные": "Склад DWH"}
    assert server.applies[0]["digest"] == new["decision"]["digest"]
    told = str(agent.model.prompts[-1][-1].content)
    assert "Подключение в цели для базы «Демо-данные»: Демо-данные → Склад DWH" in told
    assert "db-" not in told


@pytest.mark.parametrize(
    "mapping",
    [
        {"Демо-данные": "Озеро"},  # not one of the target's connections
        {"Другая": "Склад DWH"},  # not a database of this plan
        {"Демо-данные": "Демо-данные"},  # what the card has already: nothing changed
        "Склад DWH",
    ],
)
async def test_a_mapping_the_card_did_not_offer_is_a_422_and_the_card_still_waits(
    make_agent: Any, deploys: tuple[DeployServer, str], mapping: object
) -> None:
    server, url = deploys
    server.target_databases = TWO_CONNECTIONS
    async with asked_on_a_dashboard(make_agent, url, DEPLOY, ASKED) as (agent, cid, events):
        card = events[-1]
        answer = await agent.edit(cid, card, {"database_mapping": mapping})
        assert answer.status_code == 422, answer.text
        problem = answer.json()["detail"][0]
        assert problem["loc"] == ["body", "args", "database_mapping"]
        assert "db-" not in problem["msg"]  # words, not the ids
        assert (await agent.decide(cid, card["confirmation_id"], "approve")).status_code == 200
        await agent.events_after(cid, card)
    assert len(server.plans) == 1  # nothing planned for the refused edit
    assert [apply.get("database_mapping") for apply in server.applies] == [None]


async def test_one_connection_matched_offers_no_mapping(
    make_agent: Any, deploys: tuple[DeployServer, str]
) -> None:
    _, url = deploys
    async with asked_on_a_dashboard(make_agent, url, DEPLOY, ASKED) as (_, _, events):
        fields = [edit["field"] for edit in events[-1]["decision"]["edits"]]
    assert "database_mapping" not in fields


async def test_a_database_the_target_lacks_gives_no_card_but_names_the_targets_databases(
    make_agent: Any, deploys: tuple[DeployServer, str]
) -> None:
    server, url = deploys
    server.target_databases = {"db-dwh": "Склад DWH", "db-lake": "Озеро"}
    async with asked_on_a_dashboard(make_agent, url, DEPLOY, ASKED) as (_, _, events):
        refused = next(event for event in events if event["type"] == "tool_result")
    assert "confirm_required" not in types(events)
    assert refused["outcome"] == "refused"
    assert "В цели нет базы «Демо-данные»; её базы: «Склад DWH», «Озеро»" in refused["message"]
    assert server.applies == []


async def test_a_new_target_drops_the_mapping_made_for_the_old_one(
    make_agent: Any, deploys: tuple[DeployServer, str]
) -> None:
    """The connections offered were the old target's: changing the target plans without the
    mapping, and changing both at once is refused, the card still waiting."""
    server, url = deploys
    server.target_databases = TWO_CONNECTIONS
    async with asked_on_a_dashboard(make_agent, url, DEPLOY, ASKED) as (agent, cid, events):
        card = events[-1]
        both = {"target_env_id": "prod", "database_mapping": {"Демо-данные": "Склад DWH"}}
        refused = await agent.edit(cid, card, both)
        assert refused.status_code == 422, refused.text
        assert refused.json()["detail"][0]["loc"] == ["body", "args", "database_mapping"]
        mapped = await agent.edit(cid, card, {"database_mapping": {"Демо-данные": "Склад DWH"}})
        assert mapped.status_code == 200, mapped.text
        later = await agent.events_after(cid, card)
        moved = await agent.edit(cid, later[-1], {"target_env_id": "prod"})
        assert moved.status_code == 200, moved.text
        last = await agent.events_after(cid, later[-1])
    assert last[-1]["type"] == "confirm_required", last
    assert last[-1]["args"].get("database_mapping") is None
    assert "database_mapping" not in server.plans[-1]
    assert server.plans[-1]["target_env_id"] == "prod"
