"""The apply-by-digest routes' gates, as :class:`~sstools.domain.api.approval.Applying` wires
them: each route's role is checked before anything is planned, and a corrupt archive is refused
(422) and audited, nothing imported. Superset faked; no task starts."""

from __future__ import annotations

import httpx
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.domain.backups import archive
from sstools.storage.models import AuditEntry
from tests.conftest import AuthHeaders

PLAN = {"dashboard_ids": [1], "source": {"env_id": "ss-dev"}, "target_env_id": "prod"}


async def test_each_apply_route_checks_its_role_first(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    backup_id = archive.new_id("ss-dev")
    asked = [
        ("/api/deploy", {**PLAN, "digest": "d"}, Role.analyst),
        ("/api/migrations", {**PLAN, "digest": "d"}, Role.analyst),
        ("/api/deploy/0123abcd/rollback", {"env_id": "ss-dev", "digest": "d"}, Role.analyst),
        (
            f"/api/backups/{backup_id}/restore",
            {"target_env_id": "ss-dev", "digest": "d"},
            Role.engineer,
        ),
    ]
    for path, body, role in asked:
        answer = await client.post(path, json=body, headers=auth(role))
        assert answer.status_code == 403, (path, answer.text)


async def test_a_rollback_of_no_such_task_is_404(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    answer = await client.post(
        "/api/deploy/0123abcd/rollback",
        json={"env_id": "ss-dev", "digest": "d"},
        headers=auth(Role.engineer),
    )
    assert answer.status_code == 404, answer.text


async def test_a_corrupt_archive_is_refused_and_audited(
    client: httpx.AsyncClient, auth: AuthHeaders, settings: Settings
) -> None:
    backup_id = archive.new_id("ss-dev")
    path = archive.path_of(settings.backup_dir, backup_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a zip")
    answer = await client.post(
        f"/api/backups/{backup_id}/restore",
        json={"target_env_id": "ss-dev", "digest": "d"},
        headers=auth(Role.admin),
    )
    assert answer.status_code == 422, answer.text
    engine = create_engine(settings.database_url)
    with Session(engine) as session:
        rows = session.scalars(select(AuditEntry).where(AuditEntry.action == "restore_refused"))
        refused = [(row.username, row.env_id, row.outcome, row.detail) for row in rows]
    engine.dispose()
    assert refused == [("admin", "ss-dev", "corrupt_archive", {"backup_id": backup_id})]
