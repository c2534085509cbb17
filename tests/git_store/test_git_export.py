"""Export normalisation: a Superset ZIP becomes UUID-named, secret-free, byte-stable YAML."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
import yaml

from sstools.git_store import ExportError, normalise

DASHBOARD = {
    "dashboard_title": "Отчёт по энергопотреблению",
    "uuid": "11111111-1111-1111-1111-111111111111",
    "position": {"CHART-abc": {"meta": {"uuid": "22222222-2222-2222-2222-222222222222"}}},
    "version": "1.0.0",
}
CHART = {"slice_name": "Потребление", "uuid": "22222222-2222-2222-2222-222222222222"}
DATASET = {"table_name": "energy", "uuid": "33333333-3333-3333-3333-333333333333"}
DATABASE = {
    "database_name": "warehouse",
    "uuid": "44444444-4444-4444-4444-444444444444",
    "sqlalchemy_uri": "postgresql://reader:XXXXXXXXXX@db.internal:5432/dwh",
    "password": "hunter2",
    "encrypted_extra": '{"credentials_info": {"private_key": "-----BEGIN"}}',
    "masked_encrypted_extra": "{}",
    "extra": {"engine_params": {"connect_args": {"sslmode": "require", "password": "p"}}},
    "ssh_tunnel": {"server_address": "bastion", "username": "u", "private_key": "k"},
}


def bundle(stamp: str, documents: dict[str, dict[str, Any]], *, reverse: bool = False) -> bytes:
    """A ZIP shaped like Superset's: a stamped folder, metadata.yaml, title-named files."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(
            f"dashboard_export_{stamp}/metadata.yaml",
            yaml.safe_dump({"version": "1.0.0", "type": "Dashboard", "timestamp": stamp}),
        )
        for name, document in documents.items():
            items = list(document.items())
            ordered = dict(reversed(items)) if reverse else document
            archive.writestr(
                f"dashboard_export_{stamp}/{name}",
                yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True),
            )
    return buffer.getvalue()


def export(stamp: str, *, reverse: bool = False, title_suffix: str = "") -> bytes:
    return bundle(
        stamp,
        {
            f"dashboards/Report{title_suffix}_10.yaml": DASHBOARD,
            f"charts/Consumption{title_suffix}_5.yaml": CHART,
            "datasets/warehouse/energy.yaml": DATASET,
            "databases/warehouse.yaml": DATABASE,
        },
        reverse=reverse,
    )


def test_files_are_named_by_kind_and_uuid_without_metadata() -> None:
    assert sorted(normalise(export("20261130T030000"))) == [
        "charts/22222222-2222-2222-2222-222222222222.yaml",
        "dashboards/11111111-1111-1111-1111-111111111111.yaml",
        "databases/44444444-4444-4444-4444-444444444444.yaml",
        "datasets/33333333-3333-3333-3333-333333333333.yaml",
    ]


def test_two_exports_differing_only_in_volatile_things_give_identical_files() -> None:
    first = normalise(export("20261130T030000"))
    second = normalise(export("20261130T041500", reverse=True, title_suffix="_renamed_file"))
    assert first == second


def test_a_real_change_shows() -> None:
    changed = bundle("x", {"dashboards/Report_10.yaml": {**DASHBOARD, "dashboard_title": "Новый"}})
    path = "dashboards/11111111-1111-1111-1111-111111111111.yaml"
    assert normalise(changed)[path] != normalise(export("x"))[path]


def test_database_secrets_are_stripped() -> None:
    files = normalise(export("x"))
    text = files["databases/44444444-4444-4444-4444-444444444444.yaml"].decode()
    database = yaml.safe_load(text)
    for secret in ("hunter2", "XXXXXXXXXX", "BEGIN", "password", "private_key", "encrypted"):
        assert secret not in text, secret
    assert database["sqlalchemy_uri"] == "postgresql://reader@db.internal:5432/dwh"
    assert database["extra"] == {"engine_params": {"connect_args": {"sslmode": "require"}}}
    assert database["ssh_tunnel"] == {"server_address": "bastion", "username": "u"}


def test_an_unparseable_connection_string_is_dropped_not_kept() -> None:
    odd = {**DATABASE, "sqlalchemy_uri": "not a url with secret inside"}
    files = normalise(bundle("x", {"databases/warehouse.yaml": odd}))
    (content,) = files.values()
    assert "sqlalchemy_uri" not in yaml.safe_load(content)


def test_yaml_is_sorted_and_keeps_cyrillic() -> None:
    files = normalise(export("x", reverse=True))
    text = files["dashboards/11111111-1111-1111-1111-111111111111.yaml"].decode()
    assert "Отчёт по энергопотреблению" in text
    keys = [line.split(":")[0] for line in text.splitlines() if not line.startswith(" ")]
    assert keys == sorted(keys)


@pytest.mark.parametrize(
    "payload", [b"not a zip", bundle("x", {"charts/no_uuid.yaml": {"slice_name": "a"}})]
)
def test_what_is_not_an_export_is_refused(payload: bytes) -> None:
    with pytest.raises(ExportError):
        normalise(payload)


def _appended(row: str, charts: list[tuple[str, str]]) -> dict[str, Any]:
    """A layout with the row Superset's export appends for charts the saved one lacks."""
    position: dict[str, Any] = {
        "ROOT_ID": {"children": ["GRID_ID"], "id": "ROOT_ID", "type": "ROOT"},
        "GRID_ID": {"children": ["ROW-saved", row], "id": "GRID_ID", "type": "GRID"},
        "ROW-saved": {"children": [], "id": "ROW-saved", "meta": {}, "type": "ROW"},
        row: {
            "children": [chart_id for chart_id, _ in charts],
            "id": row,
            "meta": {"0": "ROOT_ID", "background": "BACKGROUND_TRANSPARENT"},
            "parents": ["ROOT_ID", "GRID_ID"],
            "type": "ROW",
        },
    }
    for chart_id, uuid in charts:
        position[chart_id] = {
            "children": [],
            "id": chart_id,
            "meta": {"uuid": uuid, "width": 4},
            "parents": ["ROOT_ID", "GRID_ID", row],
            "type": "CHART",
        }
    return {**DASHBOARD, "position": position}


def test_the_row_superset_appends_on_export_gets_stable_ids_and_order() -> None:
    # Seen on the sandbox: each export names this row and its charts afresh, in set order.
    first = _appended("ROW-N-MFMM3EKZ", [("CHART-MLG2IK9L", "u-2"), ("CHART-XCKA8WQA", "u-4")])
    second = _appended("ROW-N-4WWLDYK6", [("CHART-Y4LT5EV6", "u-4"), ("CHART-A8OJF1KF", "u-2")])
    one = normalise(bundle("a", {"dashboards/R_1.yaml": first}))
    two = normalise(bundle("b", {"dashboards/R_1.yaml": second}))
    assert one == two
    (text,) = one.values()
    assert "MFMM3EKZ" not in text.decode()
    assert "ROW-saved" in text.decode()  # a saved layout is left as it is


def test_a_saved_row_keeps_its_ids_and_order() -> None:
    saved = _appended("ROW-N-SAVED", [("CHART-B", "u-4"), ("CHART-A", "u-2")])
    saved["position"]["ROW-N-SAVED"]["meta"] = {"background": "BACKGROUND_TRANSPARENT"}
    (text,) = normalise(bundle("a", {"dashboards/R_1.yaml": saved})).values()
    position = yaml.safe_load(text)["position"]
    assert position["ROW-N-SAVED"]["children"] == ["CHART-B", "CHART-A"]
