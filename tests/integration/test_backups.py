"""Backups and restores on the real sandbox: ss-dev archived, restored into staging, compared.

Staging is put back afterwards (``restore``); a tampered archive never reaches it.
"""

from __future__ import annotations

import time
import zipfile
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.domain.backups import archive
from sstools.domain.backups.plan import export_environment
from sstools.domain.deploy import portable
from tests.conftest import AuthHeaders, app_client
from tests.integration.deploy_support import (
    Deploys,
    Restore,
    Script,
    Superset,
    assert_loud_prod_card,
    call_then_follow,
    card_for,
    decided,
    followed_to_success,
    live_agent,
    wait_for_task,
)

ADMIN = Role.admin


async def back_up(client: httpx.AsyncClient, auth: AuthHeaders, env_id: str) -> dict[str, Any]:
    started = await client.post("/api/backups", json={"env_id": env_id}, headers=auth(ADMIN))
    assert started.status_code == 202, started.text
    assert started.json()["kind"] == "backup"
    task = await wait_for_task(client, auth, started.json()["id"])
    assert task["status"] == "succeeded", (task["error"], task)
    result: dict[str, Any] = task["result"]
    return result


async def restore_plan(
    client: httpx.AsyncClient, auth: AuthHeaders, backup_id: str, target: str
) -> httpx.Response:
    return await client.post(
        f"/api/backups/{backup_id}/restore/plan",
        json={"target_env_id": target},
        headers=auth(Role.analyst),
    )


def comparable(files: dict[str, bytes]) -> dict[str, Any]:
    """Each dashboard, chart and dataset by path, without its per-environment ids."""
    return {
        path: portable(path.split("/")[0], yaml.safe_load(content))
        for path, content in files.items()
        if not path.startswith("databases/")
    }


async def test_backup_of_dev_restored_into_staging_makes_staging_equal_to_the_backup(
    client: httpx.AsyncClient, auth: AuthHeaders, deploys: Deploys
) -> None:
    dev, staging = await deploys.changing("staging")
    began = time.perf_counter()
    made = await back_up(client, auth, "ss-dev")
    backup_seconds = time.perf_counter() - began

    # The archive holds the whole of ss-dev, checksummed, with who, when and which Superset.
    dev_files = await export_environment(dev)
    manifest, files = archive.read(archive.path_of(deploys.settings.backup_dir, made["backup_id"]))
    assert files == dev_files
    assert manifest.counts == archive.counts_of(dev_files)
    assert manifest.counts["dashboards"] >= 12
    assert manifest.created_by == "admin"
    assert manifest.superset_version == "6.1.0"
    listed = await client.get(
        "/api/backups", params={"env_id": "ss-dev"}, headers=auth(Role.analyst)
    )
    assert listed.status_code == 200, listed.text
    row = next(one for one in listed.json()["backups"] if one["id"] == made["backup_id"])
    assert row["counts"] == manifest.counts
    assert row["bytes"] == made["bytes"] > 0

    planned = await restore_plan(client, auth, made["backup_id"], "staging")
    assert planned.status_code == 200, planned.text
    plan = planned.json()
    assert plan["applicable"] is True
    # ss-dev holds a draft staging does not: the plan says it will be created.
    assert plan["dashboards_changed"] >= 1
    assert any(obj["action"] == "create" and obj["kind"] == "dashboard" for obj in plan["objects"])
    skipped = {chart["uuid"] for chart in plan["unresolved_charts"]}
    assert [chart["reason"] for chart in plan["unresolved_charts"]] == ["dataset_missing"]

    staging_databases_before = {
        path: content
        for path, content in (await export_environment(staging)).items()
        if path.startswith("databases/")
    }
    began = time.perf_counter()
    started = await client.post(
        f"/api/backups/{made['backup_id']}/restore",
        json={"target_env_id": "staging", "digest": plan["digest"]},
        headers=auth(ADMIN),
    )
    assert started.status_code == 202, started.text
    assert started.json()["kind"] == "restore"
    task = await wait_for_task(client, auth, started.json()["id"])
    restore_seconds = time.perf_counter() - began
    assert task["status"] == "succeeded", (task["error"], task)

    after = await export_environment(staging)
    wanted = comparable(
        {path: content for path, content in files.items() if path.split("/")[1][:-5] not in skipped}
    )
    assert {path: doc for path, doc in comparable(after).items() if path in wanted} == wanted
    # Databases are never written: staging's connection is exactly what it was.
    assert {
        p: c for p, c in after.items() if p.startswith("databases/")
    } == staging_databases_before
    again = (await restore_plan(client, auth, made["backup_id"], "staging")).json()
    assert again["dashboards_changed"] == 0
    assert {obj["action"] for obj in again["objects"]} == {"unchanged"}
    print(
        f"\nbackup {backup_seconds:.2f} s, restore {restore_seconds:.2f} s, "
        f"archive {made['bytes']} bytes, {made['files']} files"
    )


def _inside_largest_file(path: Path) -> int:
    """An offset in the middle of the largest member's compressed data."""
    with zipfile.ZipFile(path) as bundle:
        member = max(bundle.infolist(), key=lambda info: info.compress_size)
    header = 30 + len(member.filename.encode()) + len(member.extra)  # the local file header
    return member.header_offset + header + member.compress_size // 2


def _flip(path: Path, offset: int) -> None:
    content = bytearray(path.read_bytes())
    content[offset] ^= 0xFF
    path.write_bytes(bytes(content))


@pytest.mark.parametrize("damage", ["flipped byte", "truncated"])
async def test_a_tampered_archive_is_refused_and_staging_is_left_unchanged(
    client: httpx.AsyncClient,
    auth: AuthHeaders,
    superset: Superset,
    settings: Settings,
    damage: str,
) -> None:
    made = await back_up(client, auth, "ss-dev")
    path = archive.path_of(settings.backup_dir, made["backup_id"])
    archive.read(path)  # whole before the damage
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[: made["bytes"] // 2])
    else:
        _flip(path, _inside_largest_file(path))
    try:
        staging = superset("staging")
        before = await export_environment(staging)

        for route in ("restore/plan", "restore"):
            refused = await client.post(
                f"/api/backups/{made['backup_id']}/{route}",
                # The restore with a digest as a person would send it: the archive is checked first.
                json={"target_env_id": "staging"}
                | ({"digest": "0" * 64} if route == "restore" else {}),
                headers=auth(ADMIN),
            )
            assert refused.status_code == 422, refused.text
            assert "повреждён" in refused.json()["detail"]
            assert "ничего не импортировано" in refused.json()["detail"]
        rows = (await client.get("/api/tasks", headers=auth(ADMIN))).json()
        assert not any(row.get("source") == f"backup:{made['backup_id']}" for row in rows)
        assert await export_environment(staging) == before
    finally:  # the session's backup folder is shared: later tests read healthy archives
        path.unlink(missing_ok=True)


async def test_retention_keeps_the_newest_n_backups_of_each_environment(
    tmp_path: Path, settings: Settings, auth: AuthHeaders
) -> None:
    own = settings.model_copy(update={"backup_dir": tmp_path / "backups", "backup_keep": 2})
    async with app_client(own) as api:
        made = [await back_up(api, auth, "ss-dev") for _ in range(3)]
        staging = await back_up(api, auth, "staging")
        listed = (await api.get("/api/backups", headers=auth(Role.analyst))).json()["backups"]
    ids = [row["id"] for row in listed]
    # Newest first; the first ss-dev backup was removed once the third was verified.
    assert ids == [staging["backup_id"], made[2]["backup_id"], made[1]["backup_id"]]
    assert made[2]["removed"] == [made[0]["backup_id"]]
    assert made[1]["removed"] == []
    assert not archive.path_of(own.backup_dir, made[0]["backup_id"]).exists()


def restore_then_follow(backup_id: str, target: str) -> Script:
    """A scripted model: restore the backup, then follow the task until it ends."""
    return call_then_follow("restore_backup", {"backup_id": backup_id, "target_env_id": target})


async def _card(
    live: httpx.AsyncClient, headers: dict[str, str], env_id: str
) -> tuple[str, dict[str, Any]]:
    context = {"contextVersion": 1, "objectType": None, "envId": env_id, "route": "/"}
    return await card_for(live, headers, "восстанови копию", context)


async def test_restore_through_the_agent_shows_the_plan_and_applies_it_on_approval(
    client: httpx.AsyncClient,
    auth: AuthHeaders,
    settings: Settings,
    superset: Superset,
    restore: Restore,
) -> None:
    await restore("staging")
    made = await back_up(client, auth, "ss-dev")
    plan = (await restore_plan(client, auth, made["backup_id"], "staging")).json()
    headers = auth(ADMIN)
    async with live_agent(settings, restore_then_follow(made["backup_id"], "staging")) as live:
        cid, card = await _card(live, headers, "staging")
        decision = card["decision"]
        assert (decision["stage"], decision["tone"]) == ("staging", "info")
        assert decision["digest"] == plan["digest"]
        created = [
            o for o in plan["objects"] if (o["kind"], o["action"]) == ("dashboard", "create")
        ]
        assert created, "dev's draft lives only in dev: restoring dev's backup creates it"
        # A dashboard the restore creates reads «создан», never «изменён».
        assert decision["impact"].startswith(f"{len(created)} дашборд"), decision["impact"]
        assert "будет создан" in decision["impact"] or "будут созданы" in decision["impact"]
        events = await decided(live, headers, cid, card)
    results = followed_to_success(events, "restore_backup")
    task = (await client.get(f"/api/tasks/{results[0]['task_id']}", headers=headers)).json()
    assert task["status"] == "succeeded", task
    again = (await restore_plan(client, auth, made["backup_id"], "staging")).json()
    assert again["dashboards_changed"] == 0


async def test_restore_into_prod_through_the_agent_is_a_destructive_card(
    client: httpx.AsyncClient, auth: AuthHeaders, settings: Settings, superset: Superset
) -> None:
    made = await back_up(client, auth, "ss-dev")
    headers = auth(ADMIN)
    before = await export_environment(superset("prod"))
    async with live_agent(settings, restore_then_follow(made["backup_id"], "prod")) as live:
        cid, card = await _card(live, headers, "prod")
        assert_loud_prod_card(card["decision"])
        await decided(live, headers, cid, card, "deny", timeout_s=20)
    assert await export_environment(superset("prod")) == before
