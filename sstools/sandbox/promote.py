"""Staging and prod receive dev's released dashboards by export → import, as a real fleet's do.

An import keeps every object's UUID (dashboards, charts, datasets, the database), which is what
deploys and plans match on. Dashboards are imported one at a time in :data:`DASHBOARDS` order, so
on a fresh instance they get the same ids as in dev; charts and datasets get whatever ids come
next, so those differ between environments, as they do in real fleets.
"""

from __future__ import annotations

import asyncio
import io
import zipfile
from collections.abc import Sequence

import yaml

from sstools.sandbox.errors import SandboxError
from sstools.sandbox.seed import DASHBOARDS, SeedReport
from sstools.superset import SupersetClient, versions

_RESET = "run `sstools sandbox reset` to seed the sandbox afresh"


async def _dashboards(client: SupersetClient) -> dict[str, tuple[int, str]]:
    """Title → (id, UUID) of every dashboard in one environment."""
    rows = await client.list_all("dashboard", columns=["id", "uuid", "dashboard_title"])
    return {row["dashboard_title"]: (int(row["id"]), str(row["uuid"])) for row in rows}


def _charts_without_dataset(bundle: bytes) -> list[str]:
    """Charts an import would refuse: Superset exports a chart whose dataset is gone without one."""
    names = []
    with zipfile.ZipFile(io.BytesIO(bundle)) as archive:
        for name in archive.namelist():
            if "/charts/" in name and name.endswith(".yaml"):
                document = yaml.safe_load(archive.read(name))
                if not document.get("dataset_uuid"):
                    names.append(str(document.get("slice_name")))
    return names


async def promote(dev: SupersetClient, targets: Sequence[SupersetClient]) -> list[SeedReport]:
    """Import into each target the released dev dashboards it lacks (by UUID); nothing twice."""
    in_dev = await _dashboards(dev)
    missing: dict[str, list[str]] = {}
    for target in targets:
        present = await _dashboards(target)
        uuids = {uuid for _, uuid in present.values()}
        missing[target.env.id] = []
        for spec in DASHBOARDS:
            if spec.dev_only or in_dev[spec.title][1] in uuids:
                continue
            if spec.title in present:
                raise SandboxError(
                    f"{target.env.id} has «{spec.title}» under another UUID than "
                    f"{dev.env.id} (seeded by an older sstools); {_RESET}"
                )
            missing[target.env.id].append(spec.title)

    needed = sorted({title for titles in missing.values() for title in titles})
    # Exports only read, so they run side by side; the imports below keep their order.
    exported = await asyncio.gather(
        *(dev.export_dashboards([in_dev[title][0]]) for title in needed)
    )
    bundles = dict(zip(needed, exported, strict=True))
    for title, bundle in bundles.items():
        if broken := _charts_without_dataset(bundle):
            raise SandboxError(
                f"«{title}» cannot be promoted: in {dev.env.id} the dataset of "
                f"{', '.join(broken)} is already dropped; {_RESET}"
            )

    async def into(target: SupersetClient) -> SeedReport:
        report = SeedReport(target.env.id)
        release = await target.release()  # an older one's import refuses a newer export's fields
        for title in missing[target.env.id]:  # one at a time, in order: ids follow dev's
            bundle = versions.fit_bundle(bundles[title], release)
            await target.import_dashboards(bundle, overwrite=True)
            report.created.append(f"dashboard {title} (imported from {dev.env.id})")
        return report

    return list(await asyncio.gather(*(into(target) for target in targets)))
