"""``/api/tasks``: the shapes a user meets — 404, 422, 403, 409 — on SQLite."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from pydantic import BaseModel
from sqlalchemy import select

from sstools.auth.roles import Role
from sstools.auth.tokens import Principal, issue_token
from sstools.auth.users import add_user
from sstools.config import Settings
from sstools.http.auth import CurrentUser
from sstools.storage.db import create_engine, session_factory
from sstools.storage.models import AuditEntry
from sstools.tasks import TaskKind, TaskStatus
from tests.conftest import AuthHeaders
from tests.rig import task_record
from tests.tasks.conftest import Database, Served
from tests.tasks.support import task_reaches
from tests.tasks.workflows import gate, write_steps

pytestmark = pytest.mark.parametrize("database", ["sqlite"], indirect=True)


class StartBody(BaseModel):
    env_id: str
    key: str
    folder: str
    kind: TaskKind = TaskKind.deploy


@pytest.fixture
def starting(served: Served) -> Served:
    """A start route like the deploy ones (which are built on this engine elsewhere)."""

    @served.app.post("/test/tasks")
    async def start(body: StartBody, user: CurrentUser) -> dict[str, str]:
        task = await served.tasks.start(
            body.kind,
            env_id=body.env_id,
            source="ss-dev",
            objects=["Energy KPIs"],
            object_keys=[body.key],
            started_by=user.username,
            workflow=write_steps,
            args=(body.folder, 2, True),
        )
        return {"id": task.id}

    return served


async def test_reading_and_listing_tasks(
    starting: Served, folder: Path, auth: AuthHeaders, database: Database
) -> None:
    client = starting.client
    body = {"env_id": "ss-dev", "key": "dashboard:1", "folder": str(folder)}
    created = await client.post("/test/tasks", json=body, headers=auth(Role.engineer))
    task_id = created.json()["id"]
    other = await client.post(
        "/test/tasks", json=body | {"env_id": "prod"}, headers=auth(Role.engineer)
    )
    shown = await client.get(f"/api/tasks/{task_id}", headers=auth(Role.analyst))
    assert shown.status_code == 200
    assert shown.json()["started_by"] == "engineer"
    assert shown.json()["env_id"] == "ss-dev"
    assert set(shown.json()) >= {"kind", "objects", "source", "status", "progress", "result"}

    listed = await client.get("/api/tasks?env_id=prod", headers=auth(Role.analyst))
    assert [task["id"] for task in listed.json()] == [other.json()["id"]]
    for step in (1, 2):
        gate(folder, step).touch()
    await task_reaches(starting.tasks, task_id, TaskStatus.succeeded)
    await task_reaches(starting.tasks, other.json()["id"], TaskStatus.succeeded)
    done = await client.get("/api/tasks?status=succeeded", headers=auth(Role.analyst))
    assert len(done.json()) == 2
    assert (await client.get("/api/tasks?status=running", headers=auth(Role.analyst))).json() == []


async def test_refusals_name_what_is_wrong(
    starting: Served, folder: Path, auth: AuthHeaders, database: Database
) -> None:
    client = starting.client
    unknown = await client.get(f"/api/tasks/{'0' * 32}", headers=auth(Role.analyst))
    assert unknown.status_code == 404
    assert "0" * 32 in unknown.json()["detail"]
    malformed = await client.get("/api/tasks/nope", headers=auth(Role.analyst))
    assert malformed.status_code == 422
    assert malformed.json()["detail"][0]["loc"] == [
        "path",
        "task_id",
    ]
    bad_status = await client.get("/api/tasks?status=done", headers=auth(Role.analyst))
    assert bad_status.status_code == 422
    assert bad_status.json()["detail"][0]["loc"] == ["query", "status"]
    assert "running" in bad_status.json()["detail"][0]["msg"]
    assert (await client.get("/api/tasks")).status_code == 401

    body = {"env_id": "ss-dev", "key": "dashboard:1", "folder": str(folder)}
    first = (await client.post("/test/tasks", json=body, headers=auth(Role.engineer))).json()
    conflict = await client.post("/test/tasks", json=body, headers=auth(Role.admin))
    assert conflict.status_code == 409
    assert conflict.json()["running_task"]["id"] == first["id"]
    assert first["id"] in conflict.json()["detail"]
    assert "уже выполняется" in conflict.json()["detail"]
    assert "запустил engineer" in conflict.json()["detail"]

    as_analyst = await client.post(f"/api/tasks/{first['id']}/cancel", headers=auth(Role.analyst))
    assert as_analyst.status_code == 403  # not theirs
    assert as_analyst.json()["required_role"] == "admin"
    assert (await starting.tasks.get(first["id"])).status is not TaskStatus.cancelled

    cancelled = await client.post(f"/api/tasks/{first['id']}/cancel", headers=auth(Role.engineer))
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "cancelled"
    again = await client.post(f"/api/tasks/{first['id']}/cancel", headers=auth(Role.engineer))
    assert again.status_code == 409
    assert "уже завершена" in again.json()["detail"]
    missing = await client.post(f"/api/tasks/{'f' * 32}/cancel", headers=auth(Role.engineer))
    assert missing.status_code == 404


async def test_only_the_owner_or_an_admin_cancels_and_backups_only_an_admin(
    starting: Served, folder: Path, auth: AuthHeaders, settings: Settings, database: Database
) -> None:
    client = starting.client
    engine = create_engine(settings.database_url)
    async with session_factory(engine)() as session:
        await add_user(session, "пётр", Role.engineer, "petr-test-password")
    await engine.dispose()
    token = issue_token(settings, Principal(username="пётр", role=Role.engineer))
    petr = {"Authorization": f"Bearer {token}"}

    async def start(key: str, role: Role, kind: TaskKind = TaskKind.deploy) -> str:
        body = {"env_id": "ss-dev", "key": key, "folder": str(folder), "kind": kind.value}
        created = await client.post("/test/tasks", json=body, headers=auth(role))
        assert created.status_code == 200, created.text
        task_id: str = created.json()["id"]
        return task_id

    async def cancel(task_id: str, headers: dict[str, str]) -> httpx.Response:
        return await client.post(f"/api/tasks/{task_id}/cancel", headers=headers)

    # Another engineer's deploy: refused, and it goes on; its owner or an admin may.
    first = await start("dashboard:1", Role.engineer)
    refused = await cancel(first, petr)
    assert refused.status_code == 403
    assert refused.json()["required_role"] == "admin"
    assert "запустил engineer" in refused.json()["detail"]
    assert "только он сам или администратор" in refused.json()["detail"]
    assert (await starting.tasks.get(first)).status is not TaskStatus.cancelled
    assert (await cancel(first, auth(Role.engineer))).json()["status"] == "cancelled"
    second = await start("dashboard:2", Role.engineer)
    assert (await cancel(second, auth(Role.admin))).json()["status"] == "cancelled"

    # An admin's backup or restore: no engineer cancels it; an admin does.
    for kind in (TaskKind.backup, TaskKind.restore):
        admins = await start(f"environment:{kind.value}", Role.admin, kind)
        refused = await cancel(admins, auth(Role.engineer))
        assert refused.status_code == 403
        assert refused.json()["required_role"] == "admin"
        assert "может отменить только администратор" in refused.json()["detail"]
        assert (await starting.tasks.get(admins)).status is not TaskStatus.cancelled
        assert (await cancel(admins, auth(Role.admin))).json()["status"] == "cancelled"
    async with starting.app.state.services.sessions() as session:
        audited = (
            await session.scalars(select(AuditEntry).where(AuditEntry.action == "task_cancelled"))
        ).all()
    outcomes = sorted((entry.outcome, entry.username) for entry in audited)
    assert outcomes == [
        ("forbidden", "engineer"),
        ("forbidden", "engineer"),
        ("forbidden", "пётр"),
        ("ok", "admin"),
        ("ok", "admin"),
        ("ok", "admin"),
        ("ok", "engineer"),
    ]


async def test_an_analyst_cancels_the_task_they_started(
    starting: Served, folder: Path, auth: AuthHeaders
) -> None:
    """Analysts start validations and documentation, which count against their own task cap."""
    client = starting.client
    body = {"env_id": "ss-dev", "key": "dashboard:analysts", "folder": str(folder)}
    started = await client.post("/test/tasks", json=body, headers=auth(Role.analyst))
    task_id = started.json()["id"]
    cancelled = await client.post(f"/api/tasks/{task_id}/cancel", headers=auth(Role.analyst))
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled"


async def test_a_task_is_found_by_the_first_digits_people_quote_and_filtered_by_kind_and_who(
    starting: Served, folder: Path, auth: AuthHeaders, database: Database
) -> None:
    client = starting.client
    body = {"env_id": "ss-dev", "key": "dashboard:1", "folder": str(folder)}
    deploy = (await client.post("/test/tasks", json=body, headers=auth(Role.engineer))).json()
    backup = (
        await client.post(
            "/test/tasks",
            json=body | {"env_id": "prod", "kind": "backup"},
            headers=auth(Role.admin),
        )
    ).json()
    short = deploy["id"][:8]
    shown = await client.get(f"/api/tasks/{short}", headers=auth(Role.analyst))
    assert shown.status_code == 200, shown.text
    assert shown.json()["id"] == deploy["id"]
    too_short = await client.get(f"/api/tasks/{deploy['id'][:7]}", headers=auth(Role.analyst))
    assert too_short.status_code == 422

    by_kind = await client.get("/api/tasks?kind=backup", headers=auth(Role.analyst))
    assert [task["id"] for task in by_kind.json()] == [backup["id"]]
    by_who = await client.get("/api/tasks?started_by=engineer", headers=auth(Role.analyst))
    assert [task["id"] for task in by_who.json()] == [deploy["id"]]

    cancelled = await client.post(f"/api/tasks/{short}/cancel", headers=auth(Role.engineer))
    assert cancelled.status_code == 200, cancelled.text
    assert (await starting.tasks.get(deploy["id"])).status is TaskStatus.cancelled
    for step in (1, 2):
        gate(folder, step).touch()


async def test_digits_that_name_two_tasks_are_refused_asking_for_more(
    starting: Served, auth: AuthHeaders, database: Database
) -> None:
    async with starting.tasks.sessions() as session:
        for tail in ("a" * 24, "b" * 24):
            session.add(
                task_record(
                    id=f"c0ffee00{tail}", objects=["Energy KPIs"], env_id="prod", source="ss-dev"
                )
            )
        await session.commit()
    both = await starting.client.get("/api/tasks/c0ffee00", headers=auth(Role.analyst))
    assert both.status_code == 409
    assert "несколько задач" in both.json()["detail"]
    one = await starting.client.get("/api/tasks/c0ffee00a", headers=auth(Role.analyst))
    assert one.json()["id"] == "c0ffee00" + "a" * 24
