"""The sandbox: `up` is idempotent, status tells the truth."""

from __future__ import annotations

import asyncio
import io
import zipfile

from sstools.sandbox import Sandbox
from sstools.superset import SupersetClient


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
