"""A plan made a moment ago is reused at apply only while the target is as it saw it: here, a
connection the plan maps onto that has since been deleted forces a fresh plan (which then says
it cannot apply), rather than an import that would make the connection again from ours."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from sstools.domain.deploy._sources import Sources, map_sources
from sstools.domain.deploy._target import Inventory, TargetObject
from sstools.domain.deploy.models import DeploySource
from sstools.domain.deploy.planner import PlannedDeploy, build_plan
from sstools.domain.deploy.recent import still_current
from sstools.environments import Stage
from sstools.superset import SupersetClient

DB, DATASET, CHART, DASHBOARD = (f"d0000000-0000-4000-8000-00000000000{n}" for n in range(1, 5))
DOCUMENTS: dict[str, dict[str, Any]] = {
    f"databases/{DB}.yaml": {
        "uuid": DB,
        "database_name": "warehouse",
        "sqlalchemy_uri": "postgresql://dev-host/db",
        "version": "1.0.0",
    },
    f"datasets/{DATASET}.yaml": {
        "uuid": DATASET,
        "table_name": "sales",
        "database_uuid": DB,
        "version": "1.0.0",
    },
    f"charts/{CHART}.yaml": {
        "uuid": CHART,
        "slice_name": "Sales",
        "dataset_uuid": DATASET,
        "version": "1.0.0",
    },
    f"dashboards/{DASHBOARD}.yaml": {
        "uuid": DASHBOARD,
        "dashboard_title": "Report",
        "position": {"CHART-1": {"type": "CHART", "meta": {"uuid": CHART}}},
        "version": "1.0.0",
    },
}
WITH_THE_DATABASE = Inventory(
    {"databases": {DB: TargetObject(7, DB, "warehouse", datetime(2026, 1, 1, tzinfo=UTC))}}
)


def _plan(found: Inventory) -> PlannedDeploy:
    mapped = map_sources(Sources(dashboards={DASHBOARD: DOCUMENTS}), found)
    return build_plan(
        mapped,
        source=DeploySource(env_id="ss-dev"),
        target_env_id="prod",
        target_stage=Stage.prod,
        found=found,
        target_files={},
    )


class _Target:
    """The target's lists as Superset would answer them now (nothing to export: all creates)."""

    def __init__(self, databases: list[dict[str, Any]]) -> None:
        self.databases = databases

    async def list_all(self, resource: str, **_: Any) -> list[dict[str, Any]]:
        return self.databases if resource == "database" else []

    async def list_by_uuid(self, resource: str, uuids: list[str], **_: Any) -> list[dict[str, Any]]:
        return [row for row in await self.list_all(resource) if row.get("uuid") in uuids]


async def test_a_plan_is_reused_while_its_connection_is_there_and_not_once_it_is_gone() -> None:
    planned = _plan(WITH_THE_DATABASE)
    assert planned.plan.applicable
    there = _Target([{"uuid": DB, "database_name": "warehouse"}])
    assert await still_current(planned, cast(SupersetClient, there))
    gone = _Target([])
    assert not await still_current(planned, cast(SupersetClient, gone))
    assert not _plan(Inventory({})).plan.applicable  # what the fresh plan then says
