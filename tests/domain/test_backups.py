"""Backup archives and restore plans without Superset: integrity, retention, mapping, the plan."""

from __future__ import annotations

import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from sstools.domain.backups import archive
from sstools.domain.backups.errors import ArchiveCorrupt, BackupNotFound
from sstools.domain.backups.plan import RestorePlan, archive_sources
from sstools.domain.deploy import (
    DeploySource,
    Inventory,
    MappedSources,
    TargetObject,
    build_plan,
    map_sources,
)
from sstools.domain.timeline.gather import backup_points
from sstools.environments import EnvironmentRegistry, Stage
from sstools.git_store import dump
from sstools.texts import backups as texts

DASH = "d0000000-0000-0000-0000-000000000000"
CHART = "c000000a-0000-0000-0000-000000000000"
ORPHAN = "c000000b-0000-0000-0000-000000000000"
LOOSE = "c000000c-0000-0000-0000-000000000000"
DATASET = "5e700000-0000-0000-0000-000000000000"
DB = "db000000-0000-0000-0000-000000000000"
TARGET_DB = "db00000f-0000-0000-0000-000000000000"
WHEN = datetime(2026, 11, 30, 5, 10, tzinfo=UTC)
BACKUP = "ss-dev.20261130T051000000000Z"


def source_files(slice_name: str = "Динамика", chart_id: int = 7) -> dict[str, bytes]:
    """A small environment: a dashboard with one chart, a chart whose dataset was dropped and
    a chart on no dashboard."""
    docs: dict[str, dict[str, Any]] = {
        f"dashboards/{DASH}.yaml": {
            "uuid": DASH,
            "dashboard_title": "Отчёт",
            "position": {
                "CHART-a": {
                    "type": "CHART",
                    "id": "CHART-a",
                    "meta": {"chartId": chart_id, "uuid": CHART},
                }
            },
            "metadata": {},
        },
        f"charts/{CHART}.yaml": {
            "uuid": CHART,
            "slice_name": slice_name,
            "dataset_uuid": DATASET,
            "params": {"datasource": f"{chart_id}__table", "slice_id": chart_id},
        },
        f"charts/{ORPHAN}.yaml": {"uuid": ORPHAN, "slice_name": "Тарифы (устаревшие)"},
        f"charts/{LOOSE}.yaml": {"uuid": LOOSE, "slice_name": "Черновик", "dataset_uuid": DATASET},
        f"datasets/{DATASET}.yaml": {"uuid": DATASET, "table_name": "energy", "database_uuid": DB},
        f"databases/{DB}.yaml": {"uuid": DB, "database_name": "Демо-данные"},
    }
    return {path: dump(doc) for path, doc in docs.items()}


def manifest_of(
    files: dict[str, bytes], backup_id: str = "ss-dev.20261130T051000000000Z"
) -> archive.Manifest:
    return archive.Manifest(
        id=backup_id,
        env_id="ss-dev",
        superset_version="6.1.0",
        created_at=WHEN,
        created_by="admin",
        task_id=None,
        counts=archive.counts_of(files),
        files={path: archive.sha256(content) for path, content in files.items()},
    )


@pytest.fixture
def written(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    files = source_files()
    path = archive.path_of(tmp_path, "ss-dev.20261130T051000000000Z")
    archive.write(path, archive.build(manifest_of(files), files))
    return path, files


def test_an_archive_reads_back_as_written_with_its_manifest(
    written: tuple[Path, dict[str, bytes]],
) -> None:
    path, files = written
    manifest, read = archive.read(path)
    assert read == files
    assert manifest.counts == {"dashboards": 1, "charts": 3, "datasets": 1, "databases": 1}
    assert archive.info(path).files == 6


def test_every_flipped_byte_is_refused_or_changes_nothing_read(
    written: tuple[Path, dict[str, bytes]],
) -> None:
    """A flip in file data or the manifest is refused; one in ZIP bookkeeping (a timestamp,
    say) may pass, but then every file reads back exactly as written."""
    path, files = written
    original = path.read_bytes()
    refused = 0
    reasons: set[str] = set()
    for offset in range(len(original)):
        damaged = bytearray(original)
        damaged[offset] ^= 0xFF
        path.write_bytes(bytes(damaged))
        try:
            _, read = archive.read(path)
        except ArchiveCorrupt as exc:
            reasons.add(exc.reason)
            refused += 1
        else:
            assert read == files, offset
    assert refused > len(original) // 2
    assert any("SHA-256" in reason or "не читается" in reason for reason in reasons)


async def test_a_damaged_archive_leaves_the_timeline_the_other_backups_points(
    tmp_path: Path,
) -> None:
    """A byte flipped anywhere in an archive either leaves its manifest readable or makes it
    ArchiveCorrupt, never another error (a flip in the manifest's deflate stream is zlib's own
    error), so one damaged archive drops only its own point from a dashboard's timeline."""
    files = source_files()
    good = archive.path_of(tmp_path, BACKUP)
    archive.write(good, archive.build(manifest_of(files), files))
    later = "ss-dev.20261201T051000000000Z"
    path = archive.path_of(tmp_path, later)
    original = archive.build(manifest_of(files, later), files)
    inflate_broken = None
    for offset in range(len(original)):
        damaged = bytearray(original)
        damaged[offset] ^= 0xFF
        path.write_bytes(bytes(damaged))
        try:
            archive.manifest(path)
        except ArchiveCorrupt as exc:
            if isinstance(exc.__cause__, zlib.error):
                inflate_broken = bytes(damaged)
    assert inflate_broken is not None  # the case the timeline's own reader once let through
    path.write_bytes(inflate_broken)
    points = await backup_points(tmp_path, EnvironmentRegistry([]), DASH)
    assert [point.restore.backup_id for point in points if point.restore] == [BACKUP]


def test_every_truncation_is_refused(written: tuple[Path, dict[str, bytes]]) -> None:
    path, _ = written
    original = path.read_bytes()
    for length in range(len(original)):
        path.write_bytes(original[:length])
        with pytest.raises(ArchiveCorrupt):
            archive.read(path)


def test_a_file_changed_with_a_valid_zip_is_refused_naming_it(tmp_path: Path) -> None:
    files = source_files()
    tampered = {**files, f"charts/{CHART}.yaml": files[f"charts/{CHART}.yaml"] + b"# x\n"}
    path = tmp_path / "x.zip"
    archive.write(path, archive.build(manifest_of(files), tampered))
    with pytest.raises(ArchiveCorrupt, match=rf"charts/{CHART}\.yaml не совпадает"):
        archive.read(path)
    extra = {**files, "charts/extra.yaml": b"uuid: x\n"}
    archive.write(path, archive.build(manifest_of(files), extra))
    with pytest.raises(ArchiveCorrupt, match=r"charts/extra\.yaml не указан"):
        archive.read(path)


def test_ids_name_their_environment_and_malformed_ones_are_unknown(tmp_path: Path) -> None:
    backup_id = archive.new_id("ss-dev", WHEN)
    assert backup_id == "ss-dev.20261130T051000000000Z"
    assert (
        archive.path_of(tmp_path, backup_id) == tmp_path / "ss-dev" / "20261130T051000000000Z.zip"
    )
    for bad in (
        "../etc.20261130T051000000000Z",
        "ss-dev",
        "ss-dev.2026",
        "SS.20261130T051000000000Z",
    ):
        with pytest.raises(BackupNotFound):
            archive.path_of(tmp_path, bad)


def test_retention_removes_the_oldest_beyond_the_count_and_ignores_unfinished(
    tmp_path: Path,
) -> None:
    ids = [archive.new_id("ss-dev", WHEN + timedelta(minutes=minute)) for minute in range(4)]
    for backup_id in ids:
        archive.write(archive.path_of(tmp_path, backup_id), b"x")
    unfinished = archive.part_of(archive.path_of(tmp_path, archive.new_id("ss-dev")))
    archive.write(unfinished, b"x")
    archive.write(archive.path_of(tmp_path, archive.new_id("prod", WHEN)), b"x")
    assert archive.prune(tmp_path, "ss-dev", 2) == ids[:2]
    assert [p.stem for p in archive.archives(tmp_path, "ss-dev")] == [
        i.split(".")[1] for i in ids[2:]
    ]
    assert unfinished.exists()
    assert len(archive.archives(tmp_path, "prod")) == 1


def target_db(uuid: str = TARGET_DB) -> TargetObject:
    return TargetObject(1, uuid, "Демо-данные", WHEN)


def mapped_onto(files: dict[str, bytes], db: TargetObject) -> MappedSources:
    return map_sources(archive_sources(files, BACKUP), Inventory({"databases": {db.uuid: db}}))


def test_mapping_points_datasets_at_the_targets_connection_and_skips_dataset_less_charts() -> None:
    mapped = mapped_onto(source_files(), target_db())
    files = mapped.files()
    assert mapped.databases[0].matched_by == "name"
    assert mapped.databases[0].target_uuid == TARGET_DB
    assert yaml.safe_load(files[f"datasets/{DATASET}.yaml"])["database_uuid"] == TARGET_DB
    assert f"databases/{TARGET_DB}.yaml" in files
    assert f"databases/{DB}.yaml" not in files
    assert [(chart.uuid, chart.reason) for chart in mapped.unresolved()] == [
        (ORPHAN, "dataset_missing")
    ]
    assert f"charts/{ORPHAN}.yaml" not in files
    # A restore brings back every object of the archive, not only those on a dashboard.
    assert f"charts/{LOOSE}.yaml" in files


def inventory_with(files: dict[str, bytes], db: TargetObject) -> Inventory:
    objects: dict[str, dict[str, TargetObject]] = {
        "databases": {db.uuid: TargetObject(db.id, db.uuid, db.name, WHEN)}
    }
    for number, path in enumerate(sorted(files), start=10):
        kind, uuid = path.split("/")[0], path.split("/")[1][:-5]
        if kind != "databases":
            objects.setdefault(kind, {})[uuid] = TargetObject(number, uuid, uuid, WHEN)
    return Inventory(objects)


def plan_of(target: dict[str, bytes], found: Inventory) -> RestorePlan:
    """The restore plan as ``plan_restore`` makes it, from a given inventory (no Superset)."""
    planned = build_plan(
        map_sources(archive_sources(source_files(), BACKUP), found),
        source=DeploySource(env_id="ss-dev"),
        target_env_id="staging",
        target_stage=Stage.staging,
        found=found,
        target_files=target,
        origin=texts.ORIGIN.format(id=BACKUP),
    )
    return RestorePlan.model_validate({**planned.plan.model_dump(), "backup_id": BACKUP})


def test_plan_of_an_equal_environment_changes_nothing_and_its_digest_is_stable() -> None:
    db = target_db(DB)
    # The target holds the same objects under its own ids: not a difference.
    target = mapped_onto(source_files(chart_id=42), db).files()
    plan = plan_of(target, inventory_with(target, db))
    assert plan.dashboards_changed == 0
    assert {change.action for change in plan.objects} == {"unchanged"}
    assert plan.summary.startswith("Изменений нет: 1 дашборд совпадает")
    assert plan.digest == plan_of(target, inventory_with(target, db)).digest


def test_plan_counts_a_dashboard_whose_chart_changed_and_creates_what_is_missing() -> None:
    db = target_db(DB)
    target = mapped_onto(source_files(slice_name="Старое имя"), db).files()
    changed = plan_of(target, inventory_with(target, db))
    chart = next(change for change in changed.objects if change.uuid == CHART)
    assert (chart.action, chart.fields) == ("update", ["slice_name"])
    assert changed.dashboards_changed == 1
    assert changed.summary.startswith(f"1 дашборд будет изменён в staging из копии {BACKUP}")
    empty = plan_of({}, Inventory({"databases": {DB: TargetObject(1, DB, "Демо-данные", WHEN)}}))
    assert {change.action for change in empty.objects if change.kind != "database"} == {"create"}
    assert LOOSE in {change.uuid for change in empty.objects}  # on no dashboard, still restored
    assert (empty.backup_id, empty.source.env_id) == (BACKUP, "ss-dev")
    assert empty.digest != changed.digest


def test_plan_without_a_matching_connection_is_not_applicable() -> None:
    other = TargetObject(3, TARGET_DB, "Другая база", WHEN)
    plan = plan_of({}, Inventory({"databases": {TARGET_DB: other}}))
    assert plan.applicable is False
    assert plan.databases[0].target_uuid is None
