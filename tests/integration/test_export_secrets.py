"""No database secret leaves Superset through sstools: canaries planted in a real connection.

A connection of its own in ss-dev (the shared demo one stays untouched) gets canary secrets in
its URI's query and in ``extra`` (``connect_args.passwd``, ``connect_args.api_key``, a token),
with a dashboard on it. Then it is committed to git and pushed to a bare remote, backed up, and
deployed to staging by a durable task; every git object of both repositories, every file of the
backup archive, every row of the task engine's and sstools' databases and the saved bundles are
searched for the canaries.
"""

from __future__ import annotations

import base64
import binascii
import io
import sqlite3
import uuid
import zipfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from dulwich.repo import Repo
from sqlalchemy.engine import make_url

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.domain.backups import archive
from sstools.sandbox import Sandbox
from sstools.sandbox.seed import DATABASE_NAME
from sstools.superset import SupersetClient
from sstools.tasks.engine import system_database
from tests.conftest import AuthHeaders, app_client
from tests.integration.deploy_support import Restore, Superset, delete_by_uuid, wait_for_task

TEMPLATE = "Weather Overview"  # one chart on one dataset


@dataclass(frozen=True)
class Planted:
    canaries: list[str]
    database_name: str
    dashboard_id: int


def found_in(blob: bytes, canaries: list[str]) -> list[str]:
    return [canary for canary in canaries if canary.encode() in blob]


def _decoded(value: str) -> bytes:
    """DBOS keeps inputs and outputs as base64 of a pickle: look inside as well."""
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return b""


def sqlite_rows(path: Path) -> Iterator[tuple[str, bytes]]:
    """``(table, cell)`` for every text or blob cell of every table, base64 cells decoded too."""
    connection = sqlite3.connect(path)
    try:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master")]
        for table in tables:
            if not connection.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
            ).fetchone():
                continue
            for row in connection.execute(f'SELECT * FROM "{table}"'):  # noqa: S608
                for cell in row:
                    if isinstance(cell, bytes):
                        yield table, cell
                    elif isinstance(cell, str):
                        yield table, cell.encode() + b"\n" + _decoded(cell)
    finally:
        connection.close()


def stored_for(path: Path, workflow_ids: set[str]) -> bytes:
    """Everything the task engine keeps of these workflows: inputs, step outputs, results."""
    blobs = []
    connection = sqlite3.connect(path)
    try:
        for table in ("workflow_status", "workflow_input", "operation_outputs"):
            for row in connection.execute(f'SELECT * FROM "{table}"'):  # noqa: S608
                if any(cell in workflow_ids for cell in row):
                    blobs += [str(cell).encode() + _decoded(str(cell)) for cell in row]
    finally:
        connection.close()
    return b"\n".join(blobs)


def git_objects(path: Path) -> Iterator[bytes]:
    """Every object of the repository, loose and packed, decompressed."""
    with Repo(str(path)) as repo:
        for sha in repo.object_store:
            yield repo.object_store[sha].as_raw_string()


def _planted_bundle(exported: bytes, name: str, uri: str, extra: dict[str, Any]) -> bytes:
    """A dashboard's export made into a new one: new UUIDs, its own (virtual) dataset and a
    connection of its own with ``uri`` and ``extra``."""
    with zipfile.ZipFile(io.BytesIO(exported)) as source:
        documents = {n: yaml.safe_load(source.read(n)) for n in source.namelist()}
    text = yaml.safe_dump(documents, allow_unicode=True)
    for old in {str(doc["uuid"]) for doc in documents.values() if "uuid" in doc}:
        text = text.replace(old, str(uuid.uuid4()))
    renamed: dict[str, Any] = yaml.safe_load(text)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as bundle:
        for path, doc in renamed.items():
            kind = path.split("/")[1] if "/" in path else ""
            if kind == "dashboards":
                doc |= {"dashboard_title": name, "slug": name}
            elif kind == "charts":
                doc["slice_name"] = f"{name} {doc['slice_name']}"
            elif kind == "datasets":  # staging's demo connection already has this table
                table = doc["table_name"]
                doc |= {"table_name": f"{table}_{name}", "sql": f"SELECT * FROM {table}"}  # noqa: S608
            elif kind == "databases":
                doc |= {"database_name": name, "sqlalchemy_uri": uri, "extra": extra}
            bundle.writestr(path, yaml.safe_dump(doc, allow_unicode=True))
    return buffer.getvalue()


@pytest.fixture
async def planted(sandbox: Sandbox, superset: Superset) -> AsyncIterator[Planted]:
    """A dashboard of ss-dev on a connection of its own with canary secrets in it.

    Planted by Superset's own import, as a person would bring such a connection in (creating
    or editing it tests the connection, and these arguments would make the driver refuse).
    """
    dev = superset("ss-dev")
    run = uuid.uuid4().hex[:10]
    places = ("query", "passwd", "apikey", "credentials", "token")
    canaries = [f"canary-{place}-{run}" for place in places]
    name = f"canary_{run}"
    demo = sandbox.root / "demo" / "demo.db"
    uri = f"sqlite:///file:{demo}?uri=true&mode=ro&password={canaries[0]}"
    extra = {
        "engine_params": {
            "connect_args": {"passwd": canaries[1], "api_key": canaries[2], "timeout": 5},
            "credentials_base64": canaries[3],
        },
        "metadata_params": {"access_token": canaries[4]},
    }
    template = await dev.find_dashboard("id", await _dashboard_id(dev, TEMPLATE))
    assert template is not None
    exported = await dev.export_dashboards([template[1].id])
    try:
        await dev.import_dashboards(_planted_bundle(exported, name, uri, extra), overwrite=False)
        new = await _dashboard_id(dev, name)
        # The canaries really are in what Superset exports: this test plants real leaks.
        assert found_in(_unzipped(await dev.export_dashboards([new])), canaries) == canaries
        yield Planted(canaries, name, new)
    finally:  # everything the import made, found by the run's name
        for resource, column in (
            ("dashboard", "dashboard_title"),
            ("chart", "slice_name"),
            ("dataset", "table_name"),
        ):
            query = {"columns": ["id"], "filters": [{"col": column, "opr": "ct", "value": name}]}
            for row in (await dev.get_json(f"/api/v1/{resource}/", query=query))["result"]:
                await dev.delete(f"/api/v1/{resource}/{row['id']}")
        for database in await dev.list_databases():
            if database.name == name:
                await dev.delete(f"/api/v1/database/{database.id}")


async def _dashboard_id(client: SupersetClient, title: str) -> int:
    page = await client.search_dashboards(title)
    return next(item.id for item in page.items if item.title == title)


def _unzipped(content: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(content)) as bundle:
        return b"\n".join(bundle.read(name) for name in bundle.namelist())


async def _staging_database(staging: SupersetClient) -> dict[str, Any]:
    (database,) = [db for db in await staging.list_databases() if db.name == DATABASE_NAME]
    path = f"/api/v1/database/{database.id}/connection"  # with its URI and extra
    raw: dict[str, Any] = (await staging.get_json(path))["result"]
    return raw


async def test_canaries_in_a_connection_reach_no_repository_remote_archive_or_task_store(
    planted: Planted,
    settings: Settings,
    auth: AuthHeaders,
    superset: Superset,
    restore: Restore,
    tmp_path: Path,
) -> None:
    await restore("staging")
    staging = superset("staging")
    staging_db_before = await _staging_database(staging)
    remote = tmp_path / "remote.git"
    Repo.init_bare(str(remote), mkdir=True).close()
    own = settings.model_copy(
        update={
            "git_dir": tmp_path / "git",
            "git_remote": str(remote),
            "backup_dir": tmp_path / "backups",
            "bundle_dir": tmp_path / "bundles",
        }
    )
    engineer = auth(Role.engineer)
    async with app_client(own) as api:
        committed = await api.post(
            "/api/git/commits",
            json={"env_id": "ss-dev", "dashboard_ids": [planted.dashboard_id], "message": "c"},
            headers=engineer,
        )
        assert committed.status_code == 200, committed.text
        assert committed.json()["pushed"] is True

        started = await api.post(
            "/api/backups", json={"env_id": "ss-dev"}, headers=auth(Role.admin)
        )
        assert started.status_code == 202, started.text
        backup = await wait_for_task(api, auth, started.json()["id"])
        assert backup["status"] == "succeeded", backup

        body = {
            "dashboard_ids": [planted.dashboard_id],
            "source": {"env_id": "ss-dev"},
            "target_env_id": "staging",
            "database_mapping": {planted.database_name: DATABASE_NAME},
        }
        planned = await api.post("/api/deploy/plan", json=body, headers=engineer)
        assert planned.status_code == 200, planned.text
        plan = planned.json()
        deployed = await api.post(
            "/api/deploy", json={**body, "digest": plan["digest"]}, headers=engineer
        )
        assert deployed.status_code == 202, deployed.text
        task = await wait_for_task(api, auth, deployed.json()["id"])
    try:
        assert task["status"] == "succeeded", task
        assert task["result"]["imported"] == [planted.database_name]
        # The target kept its own connection: same URI and settings, and it still answers.
        after = await _staging_database(staging)
        assert after == staging_db_before
        assert await staging.list_schemas(int(after["id"]))

        leaks: dict[str, list[str]] = {}

        def look(where: str, blob: bytes) -> None:
            if found := found_in(blob, planted.canaries):
                leaks.setdefault(where, []).extend(found)

        for name, path in (("git", own.git_dir), ("remote", remote)):
            objects = list(git_objects(path))
            assert len(objects) > 5, name  # commits, trees and the files were really written
            for blob in objects:
                look(name, blob)
        (zipped,) = archive.archives(own.backup_dir, "ss-dev")
        look("backup", _unzipped(zipped.read_bytes()))
        saved = sorted(own.bundle_dir.glob("*.json"))
        assert saved  # the deploy's files were saved there, and only named in the task's input
        for path in saved:
            look("bundles", path.read_bytes())
        tasks_db = Path(str(make_url(system_database(own)).database))
        databases = {
            "task engine": tasks_db,
            "sstools": Path(str(make_url(own.database_url).database)),
        }
        for where, path in databases.items():
            for table, cell in sqlite_rows(path):
                look(f"{where}.{table}", cell)
        assert leaks == {}
        # Not even a cleaned export is in the tasks' stored inputs and outputs: names only.
        kept = stored_for(tasks_db, {backup["id"], task["id"]})
        assert b"canary" in kept  # the deploy's order (its dashboard's title) is there
        assert b"sqlalchemy_uri" not in kept
        assert b"dataset_uuid" not in kept
    finally:
        # What the deploy created in staging, charts before their dataset (restore re-checks).
        created = {
            (one["kind"], one["uuid"]) for one in plan["objects"] if one["action"] == "create"
        }
        for kind in ("dashboard", "chart", "dataset"):
            await delete_by_uuid(staging, kind, {uuid for k, uuid in created if k == kind})
