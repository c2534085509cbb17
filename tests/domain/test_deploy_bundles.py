"""A deploy task's input names its files by digest; the files live in sstools' bundle folder."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sstools.domain.deploy import bundles
from sstools.domain.deploy.apply import ordered_dashboards

FILES = {
    "dashboards/d1.yaml": "dashboard_title: Отчёт\nuuid: d1\n".encode(),
    "databases/db.yaml": b"database_name: warehouse\nsqlalchemy_uri: sqlite://\nuuid: db\n",
}


def test_the_order_holds_digests_and_the_step_gets_the_very_files_back(tmp_path: Path) -> None:
    (dashboard,), imports = ordered_dashboards(tmp_path, {"d1": FILES}, {"d1": "Отчёт"}, {"d1"})
    assert imports is not None
    dumped = repr([dashboard.model_dump(), imports.model_dump()])
    assert "warehouse" not in dumped
    assert "sqlalchemy_uri" not in dumped
    assert dashboard.changed
    assert dashboard.title == "Отчёт"
    assert imports.bundle == bundles.key_of(FILES)
    assert bundles.load(tmp_path, imports.bundle) == FILES


def test_saving_the_same_files_twice_keeps_one_file(tmp_path: Path) -> None:
    first = bundles.save(tmp_path, [FILES])
    second = bundles.save(tmp_path, [dict(reversed(FILES.items()))])
    assert first == second
    assert [path.name for path in tmp_path.iterdir()] == [f"{first[0]}.json"]


@pytest.mark.parametrize("damage", ["missing", "changed", "not a key"])
def test_a_bundle_gone_or_changed_is_refused_not_imported(tmp_path: Path, damage: str) -> None:
    (key,) = bundles.save(tmp_path, [FILES])
    path = tmp_path / f"{key}.json"
    if damage == "missing":
        path.unlink()
    elif damage == "changed":
        path.write_bytes(path.read_bytes().replace(b"{", b"{ ", 1))
    else:
        key = "../" + key[3:]
    with pytest.raises(bundles.BundleMissing, match="не найдены или повреждены"):
        bundles.load(tmp_path, key)


def test_bundles_not_saved_for_the_keep_period_are_removed_on_the_next_save(
    tmp_path: Path,
) -> None:
    (old,) = bundles.save(tmp_path, [FILES])
    saved_at = (tmp_path / f"{old}.json").stat().st_mtime
    os.utime(tmp_path / f"{old}.json", (saved_at - bundles.KEEP_S - 1,) * 2)
    (new,) = bundles.save(tmp_path, [{"charts/c.yaml": b"uuid: c\n"}])
    assert sorted(path.stem for path in tmp_path.iterdir()) == [new]
    assert bundles.prune(tmp_path, now=saved_at) == []


def test_a_process_clock_ahead_of_the_filesystems_deletes_nothing_just_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host a month ahead of the disk's clock (a network share, libfaketime in CI)."""
    ahead = time.time() + bundles.KEEP_S + 3600
    monkeypatch.setattr(time, "time", lambda: ahead)
    (first,) = bundles.save(tmp_path, [FILES])
    (second,) = bundles.save(tmp_path, [{"charts/c.yaml": b"uuid: c\n"}])
    assert sorted(path.stem for path in tmp_path.iterdir()) == sorted([first, second])
    assert bundles.load(tmp_path, first) == FILES


def test_many_writers_saving_the_same_bundle_at_once_all_get_it_whole(tmp_path: Path) -> None:
    """Two approvals of one plan save the same files at the same moment: none sees a torn file."""
    with ThreadPoolExecutor(max_workers=8) as pool:
        keys = list(pool.map(lambda _: bundles.save(tmp_path, [FILES]), range(32)))
    assert {tuple(k) for k in keys} == {(bundles.key_of(FILES),)}
    assert bundles.load(tmp_path, keys[0][0]) == FILES
    assert not list(tmp_path.glob("*.part"))
