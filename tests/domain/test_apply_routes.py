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


async def test_each_apply_route_checks_its_role_before_planning(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    backup_id = archive.new_id("ss-dev")
    rollback = "/api/deploy/0123abcd/rollback"  # no such task: 404 once the role is enough
    restore = f"/api/backups/{backup_id}/restore"
    asked = [
        ("/api/deploy", {**PLAN, "digest": "d"}, Role.analyst, 403),
        ("/api/migrations", {**PLAN, "digest": "d"}, Role.analyst, 403),
        (rollback, {"env_id": "ss-dev", "digest": "d"}, Role.analyst, 403),
        (rollback, {"env_id": "ss-dev", "digest": "d"}, Role.engineer, 404),
        (restore, {"target_env_id": "ss-dev", "digest": "d"}, Role.engineer, 403),
    ]
    for path, body, role, expected in asked:
        answer = await client.post(path, json=body, headers=auth(role))
        assert answer.status_code == expected, (path, role, answer.text)


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
