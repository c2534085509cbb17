"""A plan's changed fields with their values on the real sandbox: the API and «Сравнить».

The seeded sandbox's «Energy KPIs» is drifted: dev's CSS is the drift marker, staging's and
prod's are empty; nothing else of it differs.
"""

from __future__ import annotations

import html

import httpx

from sstools.auth.roles import Role
from sstools.http.auth import SESSION_COOKIE
from sstools.sandbox.seed import DRIFT_MARKER, DRIFTED_DASHBOARD
from tests.conftest import AuthHeaders
from tests.integration.conftest import dashboard_id


async def _plan(client: httpx.AsyncClient, auth: AuthHeaders, board: int) -> dict[str, object]:
    response = await client.post(
        "/api/deploy/plan",
        json={"dashboard_ids": [board], "source": {"env_id": "ss-dev"}, "target_env_id": "prod"},
        headers=auth(Role.analyst),
    )
    assert response.status_code == 200, response.text
    plan: dict[str, object] = response.json()
    return plan


async def test_the_drifted_css_has_its_before_and_after_in_the_plan(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    board = await dashboard_id(client, auth, DRIFTED_DASHBOARD)
    plan = await _plan(client, auth, board)
    objects = plan["objects"]
    assert isinstance(objects, list)
    changed = [one for one in objects if one["action"] != "unchanged"]
    assert [(one["kind"], one["name"], one["fields"]) for one in changed] == [
        ("dashboard", DRIFTED_DASHBOARD, ["css"])
    ]
    [css] = changed[0]["changes"]
    assert css == {
        "field": "css",
        "label": "CSS",
        "before": "",  # prod's CSS is empty
        "after": DRIFT_MARKER,
        "diff": f"@@ -0,0 +1 @@\n+{DRIFT_MARKER}",
        "truncated": False,
        "omitted": False,
    }
    # Unchanged objects carry no values, and a database is never compared (no secrets shown).
    assert all(one["changes"] == [] for one in objects if one["action"] == "unchanged")
    assert "sqlalchemy_uri" not in str(plan)
    assert (await _plan(client, auth, board))["digest"] == plan["digest"]  # values: stable


async def test_the_compare_page_shows_the_same_diff_read_only(
    client: httpx.AsyncClient, auth: AuthHeaders, token_for: object
) -> None:
    board = await dashboard_id(client, auth, DRIFTED_DASHBOARD)
    cookie = {"Cookie": f"{SESSION_COOKIE}={token_for(Role.analyst)}"}  # type: ignore[operator]
    page = await client.get(
        f"/dashboards/{board}/compare?env_id=ss-dev&target=prod", headers=cookie
    )
    assert page.status_code == 200, page.text
    text = html.unescape(page.text)
    assert f"Сравнение «{DRIFTED_DASHBOARD}»" in text
    assert "Только просмотр: это план выкатки, ничего не записано." in text
    assert f'<span class="diff-line diff-add">+{DRIFT_MARKER}' in text
    assert "дашборд «Energy KPIs»: изменить" in text
    assert '<p class="change-field" title="css">CSS</p>' in text  # in words; the key on hover
    # The same plan as the API's: the page is its view, not a second computation.
    plan = await _plan(client, auth, board)
    assert str(plan["summary"]) in text
    unknown = await client.get(
        f"/dashboards/{board}/compare?env_id=ss-dev&target=nowhere", headers=cookie
    )
    assert unknown.status_code == 404
