"""One rule for «differs» (issue 33 §5): the drift and the compare page («Сравнить») are fed the
same pairs on the real sandbox and agree. Before, a dashboard `main` tracked from dev read as
staging's «отстаёт от источника» (its export differs from dev's in ids only, and the commit was
newer) while «Сравнить» said «Различий нет»."""

from __future__ import annotations

from pathlib import Path

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.sandbox import Sandbox
from sstools.sandbox.seed import DRIFTED_DASHBOARD
from tests.conftest import app_client, make_settings, seed_users
from tests.integration.deploy_support import Superset
from tests.rig import words_of

EQUAL = "Weather Overview"  # the same in every environment of the seed


async def test_drift_and_compare_agree_on_the_same_pairs(
    sandbox: Sandbox, superset: Superset, tmp_path: Path
) -> None:
    settings = make_settings(tmp_path, sandbox.settings.environments_file.resolve())
    await seed_users(settings)
    dev = superset("ss-dev")
    rows = await dev.list_all("dashboard", columns=["id", "dashboard_title"])
    ids = {str(row["dashboard_title"]): int(row["id"]) for row in rows}
    token = issue_token(settings, Principal(username="engineer", role=Role.engineer))
    headers = {"Authorization": f"Bearer {token}"}
    async with app_client(settings) as client:
        client.cookies.set("sstools_session", token)
        # main tracks dev's copy, committed after staging got the same version.
        committed = await client.post(
            "/api/git/commits",
            json={"env_id": "ss-dev", "dashboard_ids": [ids[EQUAL]], "message": "dev"},
            headers=headers,
        )
        assert committed.status_code == 200, committed.text
        checked = await client.post("/api/drift/check", headers=headers, timeout=300)
        assert checked.status_code == 200, checked.text
        (staging,) = [e for e in checked.json()["environments"] if e["env_id"] == "staging"]
        rows_by_title = {row["title"]: row for row in staging["dashboards"]}
        for title, differs in ((EQUAL, False), (DRIFTED_DASHBOARD, True)):
            row = rows_by_title[title]
            page = await client.get(
                f"/dashboards/{row['source_dashboard_id']}/compare",
                params={"env_id": "ss-dev", "target": "staging"},
            )
            assert page.status_code == 200
            said_equal = "Различий нет" in words_of(page.text)
            assert row["differs_from_source"] is differs, title
            assert said_equal is not differs, title
            assert (row["state"] != "in_sync") is differs, (title, row["state"])
        # main holds dev's version of EQUAL: staging's equal copy does not differ from it.
        assert rows_by_title[EQUAL]["differs_from_git"] is False
        assert rows_by_title[EQUAL]["in_git"] is True
