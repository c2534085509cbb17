"""The object a page names, as Superset has it: found by id, followed by UUID to another
environment, and never named by the URL's ``objectName`` on a card."""

from __future__ import annotations

from typing import Any

import httpx

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing import LiveServer
from tests.conftest import AuthHeaders
from tests.support import read_events

DRAFT = "Прогноз нагрузки (черновик)"  # in ss-dev only (sstools/sandbox/seed.py)


async def _dataset_id(client: httpx.AsyncClient, auth: AuthHeaders, env_id: str) -> int:
    found = await client.get(
        "/api/datasets",
        params={"env_id": env_id, "q": "energy_consumption"},
        headers=auth(Role.analyst),
    )
    return int(
        next(one["id"] for one in found.json()["items"] if one["name"] == "energy_consumption")
    )


async def _dashboard_id(client: httpx.AsyncClient, auth: AuthHeaders, title: str) -> int:
    found = await client.get(
        "/api/dashboards", params={"env_id": "ss-dev", "q": title}, headers=auth(Role.analyst)
    )
    return int(next(one["id"] for one in found.json()["items"] if one["title"] == title))


async def test_a_dataset_is_followed_to_another_environment_by_uuid(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    in_staging = await _dataset_id(client, auth, "staging")
    in_dev = await _dataset_id(client, auth, "ss-dev")
    assert in_staging != in_dev  # the sandbox seeds them apart, as a real fleet would
    response = await client.get(
        f"/api/objects/dataset/{in_staging}",
        params={"env_id": "staging", "in_env_id": "ss-dev"},
        headers=auth(Role.analyst),
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["present"] is True
    assert (body["env_id"], body["object_id"], body["name"]) == (
        "ss-dev",
        in_dev,
        "energy_consumption",
    )
    # The id alone would have named another dataset there.
    same_id = await client.get(
        f"/api/objects/dataset/{in_staging}",
        params={"env_id": "ss-dev"},
        headers=auth(Role.analyst),
    )
    assert same_id.json()["name"] != "energy_consumption"


async def test_an_object_the_other_environment_lacks_is_absent_not_another(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    draft = await _dashboard_id(client, auth, DRAFT)
    response = await client.get(
        f"/api/objects/dashboard/{draft}",
        params={"env_id": "ss-dev", "in_env_id": "prod"},
        headers=auth(Role.analyst),
    )
    body = response.json()
    assert (body["present"], body["object_id"], body["name"]) == (False, None, None)
    assert body["env_id"] == "prod"


async def test_an_unknown_object_is_a_404_in_words(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    response = await client.get(
        "/api/objects/dashboard/9999", params={"env_id": "ss-dev"}, headers=auth(Role.analyst)
    )
    assert response.status_code == 404
    assert "дашборда #9999 нет" in response.json()["detail"]
    unknown_env = await client.get(
        "/api/objects/dashboard/1",
        params={"env_id": "ss-dev", "in_env_id": "nowhere"},
        headers=auth(Role.analyst),
    )
    assert unknown_env.status_code == 422
    assert unknown_env.json()["detail"][0]["loc"] == ["query", "in_env_id"]


async def test_a_crafted_object_name_never_reaches_the_card(
    client: httpx.AsyncClient, auth: AuthHeaders, settings: Settings
) -> None:
    """A link naming the draft «Energy KPIs» must not get an engineer to approve the draft's
    creation in prod under that name: the card names what Superset calls it."""
    draft = await _dashboard_id(client, auth, DRAFT)
    headers = auth(Role.engineer)
    context: dict[str, Any] = {
        "contextVersion": 1,
        "objectType": "dashboard",
        "objectId": str(draft),
        "objectName": "Energy KPIs",
        "envId": "ss-dev",
        "route": f"/dashboards/{draft}",
    }
    with LiveServer(create_app(settings)) as server:  # the offline planner calls its tools
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as live:
            card, cid = await _card(live, headers, context)
            history = (await live.get(f"/api/agent/conversations/{cid}", headers=headers)).json()
            deny = f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}"
            await live.post(deny, json={"decision": "deny"}, headers=headers)
    shown = " ".join(
        [str(one["value"]) for one in card["decision"]["arguments"]]
        + [str(card["decision"].get("impact") or "")]
    )
    assert DRAFT in shown, card
    assert "Energy KPIs" not in shown
    assert "создан" in str(card["decision"]["impact"])
    assert history["messages"][0]["uicontext"]["objectName"] == DRAFT


async def _card(
    live: httpx.AsyncClient, headers: dict[str, str], context: dict[str, Any]
) -> tuple[dict[str, Any], str]:
    cid = (await live.post("/api/agent/conversations", headers=headers)).json()["id"]
    await live.post(
        f"/api/agent/conversations/{cid}/messages",
        headers=headers,
        json={"text": "разверни этот дашборд в prod", "uicontext": context},
    )
    events = await read_events(live, cid, headers, timeout_s=60)
    return next(event for event in events if event["type"] == "confirm_required"), cid


REPORT = "Отчёт по энергопотреблению"  # its charts read energy_consumption (region, sector, …)


async def test_a_dashboards_columns_are_those_of_its_datasets(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    report = await _dashboard_id(client, auth, REPORT)
    response = await client.get(
        f"/api/objects/dashboard/{report}/columns",
        params={"env_id": "ss-dev"},
        headers=auth(Role.analyst),
    )
    assert response.status_code == 200, response.text
    columns = response.json()["columns"]
    assert {"region", "sector", "consumption_mwh"} <= set(columns)
    assert "price_rub_kwh" not in columns  # the tariffs' column: not this dashboard's data
    missing = await client.get(
        "/api/objects/dashboard/9999/columns",
        params={"env_id": "ss-dev"},
        headers=auth(Role.analyst),
    )
    assert missing.status_code == 404


async def test_a_pages_filters_are_checked_against_the_dashboards_columns(
    client: httpx.AsyncClient, auth: AuthHeaders, settings: Settings
) -> None:
    """Issue 37 §1: a filter on a column the dashboard's datasets have reaches the turn (and the
    history); one on any other column is a 422 naming that filter, and nothing is posted."""
    report = await _dashboard_id(client, auth, REPORT)
    headers = auth(Role.analyst)
    context: dict[str, Any] = {
        "contextVersion": 2,
        "objectType": "dashboard",
        "objectId": str(report),
        "envId": "ss-dev",
        "route": f"/dashboards/{report}",
        "filters": [{"column": "region", "op": "IN", "values": ["Москва"]}],
        "chartId": "3",
    }
    wrong = {
        **context,
        "filters": [
            {"column": "region", "op": "IN", "values": ["Москва"]},
            {"column": "price_rub_kwh", "op": ">", "values": [5]},
        ],
    }
    with LiveServer(create_app(settings)) as server:  # the columns are asked over HTTP
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as live:
            cid = (await live.post("/api/agent/conversations", headers=headers)).json()["id"]
            url = f"/api/agent/conversations/{cid}/messages"
            refused = await live.post(
                url, headers=headers, json={"text": "что тут за цифры", "uicontext": wrong}
            )
            assert refused.status_code == 422, refused.text
            [error] = refused.json()["detail"]
            assert error["loc"] == ["body", "uicontext", "filters", "1", "column"]
            assert "price_rub_kwh" in error["msg"]
            assert "нет колонки" in error["msg"]
            empty = (await live.get(f"/api/agent/conversations/{cid}", headers=headers)).json()
            assert empty["messages"] == []

            accepted = await live.post(
                url, headers=headers, json={"text": "что тут за цифры", "uicontext": context}
            )
            assert accepted.status_code == 202, accepted.text
            await read_events(live, cid, headers, timeout_s=60)
            history = (await live.get(f"/api/agent/conversations/{cid}", headers=headers)).json()
    sent = history["messages"][0]["uicontext"]
    assert sent["filters"] == [{"column": "region", "op": "IN", "values": ["Москва"]}]
    assert sent["chartId"] == "3"
