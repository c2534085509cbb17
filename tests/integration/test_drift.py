"""The drift watch on the real sandbox: a dashboard edited directly in prod fails
`sstools drift --env prod --exit-code` by name until it is adopted into git; the sandbox's own
drift (dev's «Energy KPIs», edited after its release) shows as staging's one drifted dashboard."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.config import Settings
from sstools.sandbox import Sandbox
from sstools.sandbox.seed import DRIFTED_DASHBOARD
from tests.conftest import app_client, make_settings, seed_users
from tests.integration.deploy_support import Superset

EDITED = "Weather Overview"  # a dashboard no other integration test writes in prod
HOTFIX = "/* edited directly in prod (test_drift) */"
DRIFTED = ("edited_here", "behind_source", "missing")


def _drift(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    environ = {
        **os.environ,
        "SSTOOLS_DATABASE_URL": settings.database_url,
        "SSTOOLS_ENVIRONMENTS_FILE": str(settings.environments_file),
        "SSTOOLS_GIT_DIR": str(settings.git_dir),
    }
    return subprocess.run(
        [sys.executable, "-m", "sstools", "drift", *args],
        env=environ,
        cwd=settings.git_dir.parent,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _headers(settings: Settings, role: Role) -> dict[str, str]:
    token = issue_token(settings, Principal(username=role.value, role=role))
    return {"Authorization": f"Bearer {token}"}


def _rows(report: dict[str, object], env_id: str) -> dict[str, dict[str, object]]:
    environments = report["environments"]
    assert isinstance(environments, list)
    (env,) = [one for one in environments if one["env_id"] == env_id]
    return {row["title"]: row for row in env["dashboards"]}


async def test_a_dashboard_edited_in_prod_fails_the_check_until_adopted_into_git(
    sandbox: Sandbox, superset: Superset, tmp_path: Path
) -> None:
    # Its own app and repository: git main holds only what this test commits.
    settings = make_settings(tmp_path, sandbox.settings.environments_file.resolve())
    await seed_users(settings)
    prod = superset("prod")
    rows = await prod.list_all("dashboard", columns=["id", "dashboard_title"])
    prod_id = next(int(row["id"]) for row in rows if row["dashboard_title"] == EDITED)
    path = f"/api/v1/dashboard/{prod_id}"
    before = (await prod.get_json(path))["result"].get("css")
    await prod.put_json(path, {"css": (before or "") + HOTFIX})
    try:
        failed = _drift(settings, "--env", "prod", "--exit-code")
        assert failed.returncode == 1, failed.stdout + failed.stderr
        assert f"«{EDITED}» — изменён прямо в этом окружении" in failed.stdout

        async with app_client(settings) as client:
            analyst = _headers(settings, Role.analyst)
            answer = await client.post("/api/drift/check", headers=analyst)
            assert answer.status_code == 200, answer.text
            report = answer.json()
            edited = _rows(report, "prod")[EDITED]
            assert edited["state"] == "edited_here"
            assert edited["differs_from_source"] is True
            # The sandbox's deliberate drift: dev's «Energy KPIs» differs from staging's. Freshly
            # seeded, dev's is newer (staging is behind); a test that deployed it to staging and
            # imported staging's back made staging's `changed_on` newer, and times are all the
            # rule has, so it then reads as edited in staging. Either way it is staging's one drift.
            kpis = _rows(report, "staging")[DRIFTED_DASHBOARD]
            assert kpis["state"] in ("behind_source", "edited_here")
            assert kpis["differs_from_source"] is True
            (staging,) = [one for one in report["environments"] if one["env_id"] == "staging"]
            assert sum(staging["counts"][state] for state in DRIFTED) == 1
            assert _rows(report, "ss-dev")[DRIFTED_DASHBOARD]["state"] == "in_sync"
            assert _rows(report, "prod")[DRIFTED_DASHBOARD]["state"] == "in_sync"
            (prod_report,) = [one for one in report["environments"] if one["env_id"] == "prod"]
            assert prod_report["counts"]["edited_here"] >= 1

            # The latest report comes back without a new check, with its time.
            again = await client.get("/api/drift", params={"env_id": "prod"}, headers=analyst)
            assert again.json()["checked_at"] == report["checked_at"]
            assert [one["env_id"] for one in again.json()["environments"]] == ["prod"]

            adopted = await client.post(
                "/api/git/commits",
                json={"env_id": "prod", "dashboard_ids": [prod_id], "message": "prod hotfix"},
                headers=_headers(settings, Role.engineer),
            )
            assert adopted.status_code == 200, adopted.text
            assert adopted.json()["created"] is True

        passed = _drift(settings, "--env", "prod", "--exit-code")
        assert EDITED not in passed.stdout, passed.stdout
        assert passed.returncode == 0, passed.stdout + passed.stderr
    finally:
        await prod.put_json(path, {"css": before})
    assert (await prod.get_json(path))["result"].get("css") == before
