"""The sandbox: `up` is idempotent, content is promoted from dev, one instance stops alone."""

from __future__ import annotations

import asyncio
import io
import threading
import time
import zipfile
from typing import Any

import pytest
import yaml

from sstools.environments import Environment
from sstools.git_store import normalise
from sstools.sandbox import Sandbox, SandboxError
from sstools.sandbox.lock import exclusive
from sstools.superset import SupersetClient


def _env(sandbox: Sandbox, env_id: str) -> Environment:
    return next(env for env in sandbox.environments() if env.id == env_id)


async def _counts(sandbox: Sandbox) -> dict[str, tuple[int, int, int]]:
    counts = {}
    for env in sandbox.environments():
        client = SupersetClient(env)
        try:
            counts[env.id] = (
                len(await client.list_all("dashboard", columns=["id"])),
                len(await client.list_all("chart", columns=["id"])),
                len(await client.list_all("dataset", columns=["id"])),
            )
        finally:
            await client.aclose()
    return counts


def test_up_twice_creates_nothing_twice(sandbox: Sandbox) -> None:
    before = asyncio.run(_counts(sandbox))  # `up` runs its own event loop, as the CLI does
    lines: list[str] = []
    sandbox.up(progress=lines.append)
    assert asyncio.run(_counts(sandbox)) == before
    assert sum(1 for line in lines if "0 objects created" in line) == 3
    assert before["ss-dev"][0] == before["prod"][0] + 1  # the dev-only draft
    assert all(
        dashboards >= 12 and charts >= 6 and datasets >= 3
        for dashboards, charts, datasets in before.values()
    )


def test_status_reports_three_healthy_instances(sandbox: Sandbox) -> None:
    statuses = sandbox.status()
    assert [(s.env_id, s.stage.value, s.healthy) for s in statuses] == [
        ("ss-dev", "dev", True),
        ("staging", "staging", True),
        ("prod", "prod", True),
    ]
    assert len({s.pid for s in statuses}) == 3


async def test_export_and_import_a_dashboard_round_trip(sandbox: Sandbox) -> None:
    """The client's export and import (the write side's deploys build on them)."""
    dev = SupersetClient(next(env for env in sandbox.environments() if env.id == "ss-dev"))
    try:
        bundle = await dev.export_dashboards([10])
        names = zipfile.ZipFile(io.BytesIO(bundle)).namelist()
        before = await dev.get_dashboard(10)
        await dev.import_dashboards(bundle, overwrite=True)
        after = await dev.search_dashboards("Отчёт по энергопотреблению")
        reimported = await dev.get_dashboard(after.items[0].id)
    finally:
        await dev.aclose()
    assert any(name.endswith("metadata.yaml") for name in names)
    assert any("/dashboards/" in name for name in names)
    assert sum("/charts/" in name for name in names) == 3
    assert after.total == 1  # same uuid: overwritten in place, not duplicated
    assert reimported.id == 10
    assert {chart.name for chart in reimported.charts} == {chart.name for chart in before.charts}


async def _uuids(env: Environment) -> dict[str, dict[str, str]]:
    """Kind → name → UUID of an environment's content."""
    client = SupersetClient(env)
    try:
        found: dict[str, dict[str, str]] = {}
        for kind, name in (
            ("dashboard", "dashboard_title"),
            ("chart", "slice_name"),
            ("dataset", "table_name"),
            ("database", "database_name"),
        ):
            rows = await client.list_all(kind, columns=["id", "uuid", name])
            found[kind] = {row[name]: str(row["uuid"]) for row in rows}
            found[f"{kind} ids"] = {row[name]: str(row["id"]) for row in rows}
    finally:
        await client.aclose()
    return found


async def test_staging_and_prod_hold_devs_released_content_under_devs_uuids(
    sandbox: Sandbox,
) -> None:
    """Promoted by export → import as in a real fleet, so a deploy can match objects by UUID."""
    dev, staging, prod = [await _uuids(env) for env in sandbox.environments()]
    for target in (staging, prod):
        for kind in ("dashboard", "chart", "database"):
            released = {name: uuid for name, uuid in dev[kind].items() if "черновик" not in name}
            assert target[kind] == released, kind
        # The dropped dataset is gone everywhere; the others are dev's.
        assert target["dataset"] == dev["dataset"]
        assert set(target["dataset"]) == {
            "energy_consumption",
            "regions",
            "sales_orders",
            "weather_daily",
        }
        assert target["dashboard ids"]["Отчёт по энергопотреблению"] == "10"
        assert target["dashboard ids"] == {
            title: id_ for title, id_ in dev["dashboard ids"].items() if "черновик" not in title
        }
    assert "Прогноз нагрузки (черновик)" in dev["dashboard"]


async def test_promoted_content_works_in_prod(sandbox: Sandbox) -> None:
    """The imported database connects and its dataset answers; DML stays allowed as in dev."""
    prod_env = next(env for env in sandbox.environments() if env.id == "prod")
    prod = SupersetClient(prod_env)
    try:
        [database] = [db for db in await prod.list_databases() if db.name == "Демо-данные"]
        body = await prod.get_json(f"/api/v1/database/{database.id}")
        result = await prod.execute_sql(
            database.id, "select count(*) as n from regions", schema="main", row_limit=10
        )
    finally:
        await prod.aclose()
    assert body["result"]["allow_dml"] is True
    assert result.rows == [{"n": 8}]


def test_one_instance_stops_and_starts_alone(sandbox: Sandbox) -> None:
    """An outage of staging alone (deploy tests stop it midway); its content survives."""
    before = asyncio.run(_uuids(_env(sandbox, "staging")))
    assert sandbox.stop("staging").startswith("staging: stopped")
    try:
        assert [(s.env_id, s.running, s.healthy) for s in sandbox.status()] == [
            ("ss-dev", True, True),
            ("staging", False, False),
            ("prod", True, True),
        ]
        assert sandbox.stop("staging") == "staging: not running"
    finally:
        started = time.monotonic()
        line = sandbox.start("staging")
        took = time.monotonic() - started
    assert line.startswith("staging: started, healthy in")
    assert took < 60
    assert all(s.healthy for s in sandbox.status())
    assert asyncio.run(_uuids(_env(sandbox, "staging"))) == before
    assert sandbox.start("staging") == "staging: already running"


def test_an_unknown_instance_is_named_in_the_error(sandbox: Sandbox) -> None:
    with pytest.raises(SandboxError, match=r"'ss-staging'.*ss-dev, staging, prod"):
        sandbox.stop("ss-staging")
    with pytest.raises(SandboxError, match="'qa'"):
        sandbox.start("qa")


def _without_local_ids(value: Any) -> Any:
    """An export without the ids each environment assigns itself (UUIDs are what match)."""
    if isinstance(value, dict):
        return {
            key: _without_local_ids(item)
            for key, item in value.items()
            if key not in ("chartId", "datasource")
        }
    if isinstance(value, list):
        return [_without_local_ids(item) for item in value]
    return value


async def test_dev_and_prod_differ_only_where_dev_was_edited_after_release(
    sandbox: Sandbox,
) -> None:
    """So a plan from dev to prod on a fresh sandbox has exactly one dashboard to change."""
    exports: dict[str, dict[str, dict[str, Any]]] = {}
    for env_id in ("ss-dev", "prod"):
        client = SupersetClient(_env(sandbox, env_id))
        try:
            rows = await client.list_all("dashboard", columns=["id", "dashboard_title"])
            exports[env_id] = {
                row["dashboard_title"]: {
                    path: _without_local_ids(yaml.safe_load(content))
                    for path, content in normalise(
                        await client.export_dashboards([row["id"]])
                    ).items()
                }
                for row in rows
            }
        finally:
            await client.aclose()
    differing = {
        title: [
            path
            for path in files.keys() | exports["ss-dev"][title].keys()
            if files.get(path) != exports["ss-dev"][title].get(path)
        ]
        for title, files in exports["prod"].items()
    }
    assert len(differing) == 12
    changed = {title: paths for title, paths in differing.items() if paths}
    assert list(changed) == ["Energy KPIs"]
    [kpis] = changed["Energy KPIs"]
    assert kpis.startswith("dashboards/")
    dev_kpis, prod_kpis = (
        exports["ss-dev"]["Energy KPIs"][kpis],
        exports["prod"]["Energy KPIs"][kpis],
    )
    assert {key for key in dev_kpis if dev_kpis[key] != prod_kpis.get(key)} == {"css"}


def test_a_sandbox_command_waits_for_another_one_running(sandbox: Sandbox) -> None:
    """Parallel test sessions all call `up`: one seeds, the others wait instead of racing it."""
    done = threading.Event()

    def second() -> None:
        assert Sandbox(sandbox.settings).start("staging") == "staging: already running"
        done.set()

    with exclusive(sandbox.root / "sandbox.lock"):  # as another process's `up` holds it
        waiting = threading.Thread(target=second)
        waiting.start()
        assert not done.wait(timeout=1.0)
    waiting.join(timeout=60)
    assert done.is_set()
