"""Deploy plans on the real sandbox: staging and prod hold dev's released content (same UUIDs)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.domain.deploy import (
    DeploySource,
    PlannedDeploy,
    PlanRequest,
    UnknownDashboard,
    export_target,
    import_bundle,
    make_plan,
)
from sstools.environments import EnvironmentRegistry
from sstools.git_store import GitStore
from sstools.sandbox import Sandbox
from sstools.sandbox.seed import DATABASE_NAME
from sstools.superset import SupersetClient, SupersetPool
from tests.conftest import AuthHeaders
from tests.integration.deploy_support import SECOND_CONNECTION

KPIS = "Energy KPIs"
REPORT = "Отчёт по энергопотреблению"
DRAFT = "Прогноз нагрузки (черновик)"
ARCHIVE = "Тарифы 2023 (архив)"
WEATHER = "Погода и нагрузка"


@pytest.fixture
async def pool(sandbox: Sandbox) -> AsyncIterator[SupersetPool]:
    pool = SupersetPool(EnvironmentRegistry(sandbox.environments()), timeout_s=60)
    yield pool
    await pool.aclose()


@pytest.fixture
def environments(sandbox: Sandbox) -> EnvironmentRegistry:
    return EnvironmentRegistry(sandbox.environments())


async def _id(superset: SupersetClient, title: str) -> int:
    page = await superset.search_dashboards(title)
    return next(item.id for item in page.items if item.title == title)


async def _plan(
    pool: SupersetPool,
    environments: EnvironmentRegistry,
    git: GitStore,
    title: str,
    target: str,
    **source: Any,
) -> PlannedDeploy:
    dashboard_id = await _id(pool.client("ss-dev"), title)
    request = PlanRequest(
        dashboard_ids=[dashboard_id],
        source=DeploySource(env_id="ss-dev", **source),
        target_env_id=target,
    )
    return await make_plan(request, pool, environments, git)


def _actions(planned: PlannedDeploy) -> list[tuple[str, str, str]]:
    return sorted((o.kind, o.name, o.action) for o in planned.plan.objects)


async def test_the_dev_only_draft_plans_a_create_of_it_and_its_chart_to_staging(
    client: httpx.AsyncClient, auth: AuthHeaders, pool: SupersetPool
) -> None:
    draft_id = await _id(pool.client("ss-dev"), DRAFT)
    response = await client.post(
        "/api/deploy/plan",
        json={
            "dashboard_ids": [draft_id],
            "source": {"env_id": "ss-dev"},
            "target_env_id": "staging",
        },
        headers=auth(Role.analyst),  # a plan writes nothing: analysts may look
    )
    assert response.status_code == 200, response.text
    plan = response.json()
    assert sorted((o["kind"], o["action"]) for o in plan["objects"]) == [
        ("chart", "create"),
        ("dashboard", "create"),
        ("database", "unchanged"),
        ("dataset", "unchanged"),
    ]
    assert [(d["name"], d["action"]) for d in plan["dashboards"]] == [(DRAFT, "create")]
    assert plan["dashboards_changed"] == 1
    assert plan["summary"] == f"1 дашборд будет создан в staging: «{DRAFT}»"
    assert plan["target_stage"] == "staging"
    assert plan["applicable"] is True
    assert [d["matched_by"] for d in plan["databases"]] == ["uuid"]


async def test_an_equal_dashboard_plans_unchanged_for_every_object(
    pool: SupersetPool, environments: EnvironmentRegistry, tmp_path: Path
) -> None:
    planned = await _plan(pool, environments, GitStore(tmp_path), REPORT, "prod")
    assert {action for _, _, action in _actions(planned)} == {"unchanged"}
    assert {o.kind for o in planned.plan.objects} == {"dashboard", "chart", "dataset", "database"}
    assert planned.plan.dashboards_changed == 0
    assert planned.plan.summary == "Изменений нет: 1 дашборд совпадает с prod"


async def test_the_drifted_energy_kpis_plans_an_update_of_its_css(
    pool: SupersetPool, environments: EnvironmentRegistry, tmp_path: Path
) -> None:
    planned = await _plan(pool, environments, GitStore(tmp_path), KPIS, "prod")
    changed = [
        (o.kind, o.name, o.action, o.fields)
        for o in planned.plan.objects
        if o.action != "unchanged"
    ]
    assert changed == [("dashboard", KPIS, "update", ["css"])]
    assert planned.plan.dashboards_changed == 1


async def test_the_digest_is_stable_and_changes_with_an_edit_in_the_target(
    pool: SupersetPool, environments: EnvironmentRegistry, tmp_path: Path
) -> None:
    git = GitStore(tmp_path)
    first = await _plan(pool, environments, git, WEATHER, "staging")
    again = await _plan(pool, environments, git, WEATHER, "staging")
    assert again.plan.digest == first.plan.digest
    staging = pool.client("staging")
    target_id = next(o.target_id for o in first.plan.dashboards)
    original = (await staging.get_json(f"/api/v1/dashboard/{target_id}"))["result"]["css"]
    try:
        await staging.put_json(f"/api/v1/dashboard/{target_id}", {"css": "/* edited in staging */"})
        edited = await _plan(pool, environments, git, WEATHER, "staging")
    finally:
        await staging.put_json(f"/api/v1/dashboard/{target_id}", {"css": original})
    assert edited.plan.digest != first.plan.digest
    assert [(o.action, o.fields) for o in edited.plan.dashboards] == [("update", ["css"])]
    restored = await _plan(pool, environments, git, WEATHER, "staging")
    assert [o.action for o in restored.plan.dashboards] == ["unchanged"]


async def _delete_by_uuid(superset: SupersetClient, resource: str, uuid: str) -> None:
    rows = await superset.list_all(
        resource, columns=["id", "uuid"], filters=[{"col": "uuid", "opr": "eq", "value": uuid}]
    )
    for row in rows:
        await superset.delete(f"/api/v1/{resource}/{row['id']}")


async def test_importing_the_bundle_makes_the_target_equal_to_the_plan(
    pool: SupersetPool, environments: EnvironmentRegistry, tmp_path: Path
) -> None:
    git = GitStore(tmp_path)
    planned = await _plan(pool, environments, git, DRAFT, "staging")
    ((uuid, files),) = planned.bundles.items()
    created = [o for o in planned.plan.objects if o.action == "create"]
    staging = pool.client("staging")
    assert await export_target(staging, [uuid]) == {}
    try:
        started = time.perf_counter()
        await import_bundle(staging, files)
        print(f"\n[deploy] import of the draft into staging: {time.perf_counter() - started:.2f} s")
        after = await _plan(pool, environments, git, DRAFT, "staging")
        assert {o.action for o in after.plan.objects} == {"unchanged"}
        assert after.plan.dashboards_changed == 0
        exported = await export_target(staging, [uuid])
        assert f"dashboards/{uuid}.yaml" in exported
    finally:
        for change in created:
            await _delete_by_uuid(staging, change.kind, change.uuid)
    assert await export_target(staging, [uuid]) == {}


async def test_a_plan_from_a_git_branch_reads_the_committed_files(
    pool: SupersetPool, environments: EnvironmentRegistry, tmp_path: Path
) -> None:
    git = GitStore(tmp_path)
    dev = pool.client("ss-dev")
    kpis = await _id(dev, KPIS)
    await git.create_branch("release")
    outcome = await git.commit(dev, [kpis], message="KPIs", username="engineer", branch="release")
    assert outcome.commit is not None
    (uuid,) = [o.uuid for o in (await _plan(pool, environments, git, KPIS, "prod")).plan.dashboards]
    request = PlanRequest(
        dashboard_uuids=[uuid], source=DeploySource(git_ref="release"), target_env_id="prod"
    )
    planned = await make_plan(request, pool, environments, git)
    changed = [
        (o.kind, o.action, o.fields) for o in planned.plan.objects if o.action != "unchanged"
    ]
    assert changed == [("dashboard", "update", ["css"])]
    assert planned.plan.source.git_ref == "release"
    # A branch without the dashboard names it.
    missing = PlanRequest(
        dashboard_uuids=[uuid], source=DeploySource(git_ref="main"), target_env_id="prod"
    )
    with pytest.raises(UnknownDashboard, match=uuid):
        await make_plan(missing, pool, environments, git)


@pytest.mark.parametrize(
    ("body", "status", "text"),
    [
        (
            {"dashboard_ids": [987654], "source": {"env_id": "ss-dev"}, "target_env_id": "prod"},
            404,
            "987654",
        ),
        (
            {"dashboard_ids": [1], "source": {"env_id": "ss-dev"}, "target_env_id": "nowhere"},
            404,
            "nowhere",
        ),
        ({"source": {"env_id": "ss-dev"}, "target_env_id": "prod"}, 422, "dashboard_ids"),
        ({"dashboard_ids": [1], "source": {}, "target_env_id": "prod"}, 422, "source"),
        (
            {"dashboard_ids": [1], "source": {"env_id": "prod"}, "target_env_id": "prod"},
            422,
            "target_env_id",
        ),
        (
            {"dashboard_ids": [1], "source": {"git_ref": "main"}, "target_env_id": "prod"},
            422,
            "env_id",
        ),
        (
            {
                "dashboard_uuids": ["0dbcd762-a4ba-4d6c-976d-000000000000"],
                "source": {"git_ref": "nope"},
                "target_env_id": "prod",
            },
            404,
            "nope",
        ),
        (
            {
                "dashboard_ids": [1],
                "source": {"env_id": "ss-dev"},
                "target_env_id": "prod",
                "database_mapping": {"Демо-данные": "missing-db"},
            },
            422,
            "missing-db",
        ),
    ],
)
async def test_a_bad_plan_request_is_refused_naming_what_is_wrong(
    client: httpx.AsyncClient, auth: AuthHeaders, body: dict[str, Any], status: int, text: str
) -> None:
    response = await client.post("/api/deploy/plan", json=body, headers=auth(Role.analyst))
    assert response.status_code == status, response.text
    assert text in response.text


async def test_where_a_dashboard_lives_says_whether_it_differs_from_the_source(
    client: httpx.AsyncClient, auth: AuthHeaders, pool: SupersetPool
) -> None:
    dev = pool.client("ss-dev")
    differs = {}
    for title in (KPIS, REPORT):
        started = time.perf_counter()
        response = await client.get(
            f"/api/dashboards/{await _id(dev, title)}/environments",
            params={"env_id": "ss-dev"},
            headers=auth(Role.analyst),
        )
        print(
            f"\n[deploy] environments of «{title}» with plans: "
            f"{time.perf_counter() - started:.2f} s"
        )
        assert response.status_code == 200, response.text
        differs[title] = {row["env_id"]: row["differs"] for row in response.json()["environments"]}
    assert differs == {
        KPIS: {"ss-dev": None, "staging": True, "prod": True},
        REPORT: {"ss-dev": None, "staging": False, "prod": False},
    }


async def test_the_target_connections_cache_timeout_is_never_a_change(
    pool: SupersetPool, environments: EnvironmentRegistry, tmp_path: Path
) -> None:
    """Superset exports a dataset's database's ``cache_timeout`` as the dataset's own when it
    has none: a plan counting it would re-import on every run and never say «изменений нет»."""
    prod = pool.client("prod")
    databases = await prod.list_databases()
    connection = next(one for one in databases if one.name == "Демо-данные")
    await prod.put_json(f"/api/v1/database/{connection.id}", {"cache_timeout": 300})
    try:
        planned = await _plan(pool, environments, GitStore(tmp_path), REPORT, "prod")
    finally:
        await prod.put_json(f"/api/v1/database/{connection.id}", {"cache_timeout": None})
    assert {action for _, _, action in _actions(planned)} == {"unchanged"}, planned.plan.objects
    assert planned.plan.dashboards_changed == 0


async def test_a_chart_the_import_would_take_off_the_target_dashboard_is_said_so(
    pool: SupersetPool, environments: EnvironmentRegistry, tmp_path: Path
) -> None:
    """The archive's chart lost its dataset everywhere: a deploy that rewrites prod's copy of
    the dashboard (here prod's CSS differs) leaves it off, so the plan must say it will be
    removed there, not only that it «не будет перенесён». Prod is put back exactly (its CSS is
    null, not empty: the sandbox's own test compares raw exports)."""
    prod = pool.client("prod")
    archive = await _id(prod, ARCHIVE)
    before = (await prod.get_json(f"/api/v1/dashboard/{archive}"))["result"].get("css")
    await prod.put_json(f"/api/v1/dashboard/{archive}", {"css": "/* a prod hotfix */"})
    try:
        planned = await _plan(pool, environments, GitStore(tmp_path), ARCHIVE, "prod")
    finally:
        await prod.put_json(f"/api/v1/dashboard/{archive}", {"css": before})
    unchanged = await _plan(pool, environments, GitStore(tmp_path / "again"), ARCHIVE, "prod")
    (chart,) = planned.plan.unresolved_charts
    assert chart.removed_from_target is True
    assert "уберёт его с дашборда" in chart.message
    assert "1 график будет убран с дашборда в prod: «Тарифы (устаревшие)»" in planned.plan.summary
    # Nothing rewrites prod's dashboard when it is unchanged: nothing is taken off it.
    (kept,) = unchanged.plan.unresolved_charts
    assert kept.removed_from_target is False
    assert "не будет перенесён" in unchanged.plan.summary


async def test_a_plan_that_creates_says_created(
    pool: SupersetPool, environments: EnvironmentRegistry, tmp_path: Path
) -> None:
    planned = await _plan(pool, environments, GitStore(tmp_path), DRAFT, "prod")
    assert planned.plan.summary == f"1 дашборд будет создан в prod: «{DRAFT}»"


async def test_a_dataset_staging_has_is_pinned_to_its_connection_and_never_moved(
    client: httpx.AsyncClient, auth: AuthHeaders, pool: SupersetPool, second_connection: int
) -> None:
    """Staging has two connections; the dashboard's dataset exists there on the seeded one.
    Superset's import cannot move it (it inserts a second copy and fails), so the plan pins
    that database (a card offers no other) and a mapping onto the second cannot apply."""
    dashboard_id = await _id(pool.client("ss-dev"), "Отчёт по энергопотреблению")
    body = {"dashboard_ids": [dashboard_id], "source": {"env_id": "ss-dev"}}
    body["target_env_id"] = "staging"
    plain = await client.post("/api/deploy/plan", json=body, headers=auth(Role.analyst))
    assert plain.status_code == 200, plain.text
    plan = plain.json()
    assert {db["name"] for db in plan["target_databases"]} == {DATABASE_NAME, SECOND_CONNECTION}
    assert [(db["target_name"], db["pinned"]) for db in plan["databases"]] == [
        (DATABASE_NAME, True)
    ]
    moved = await client.post(
        "/api/deploy/plan",
        json=body | {"database_mapping": {DATABASE_NAME: SECOND_CONNECTION}},
        headers=auth(Role.analyst),
    )
    assert moved.status_code == 200, moved.text
    assert moved.json()["applicable"] is False
    assert "уже есть в staging на другом подключении" in moved.json()["summary"]
    # Sent straight to the apply route with its digest: refused in words, never a 500.
    applied = await client.post(
        "/api/deploy",
        json=body
        | {"database_mapping": {DATABASE_NAME: SECOND_CONNECTION}}
        | {"digest": moved.json()["digest"]},
        headers=auth(Role.engineer),
    )
    assert applied.status_code == 422, applied.text
    assert "не переносит существующий набор" in applied.text
