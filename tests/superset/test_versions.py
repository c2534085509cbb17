"""What differs between Superset releases: a newer export fitted to an older release's import."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
import yaml

from sstools.superset import versions
from sstools.superset.versions import FieldNotTaken, fit_bundle, fit_for, parse

# A dataset as Superset 6.1.0 exports it (the fields 5.0.0's import refuses are all here).
DATASET_61: dict[str, Any] = {
    "table_name": "sales_orders",
    "currency_code_column": None,
    "folders": None,
    "source_db_engine": "sqlite",
    "uuid": "3d88d77e-833e-423f-aa8e-0d8c3b919526",
    "columns": [
        {"column_name": "region", "datetime_format": None},
        {"column_name": "order_date", "datetime_format": None, "is_dttm": True},
    ],
    "version": "1.0.0",
}


def test_releases_are_read_as_superset_writes_them() -> None:
    assert parse("5.0.0") == (5, 0, 0)
    assert parse("6.1.0rc2") == (6, 1, 0)
    assert parse("4.1") == (4, 1, 0)
    assert parse("") is None
    assert parse("master") is None


def test_an_empty_newer_field_is_taken_out_and_said() -> None:
    document = {**DATASET_61, "columns": [dict(column) for column in DATASET_61["columns"]]}
    dropped = fit_for("datasets", document, (5, 0, 0))
    assert "folders" not in document
    assert "currency_code_column" not in document
    assert all("datetime_format" not in column for column in document["columns"])
    assert document["columns"][1]["is_dttm"] is True  # everything else stays
    assert {(one.field, one.had_content) for one in dropped} == {
        ("folders", False),
        ("currency_code_column", False),
        ("columns.datetime_format", False),
        ("source_db_engine", True),  # a hint the older release works out itself
    }


def test_content_an_older_release_has_no_place_for_is_refused_by_name() -> None:
    document = {**DATASET_61, "currency_code_column": "currency"}
    with pytest.raises(FieldNotTaken) as refused:
        fit_for("datasets", document, (5, 0, 0))
    assert (refused.value.kind, refused.value.name, refused.value.field) == (
        "datasets",
        "sales_orders",
        "currency_code_column",
    )


def test_the_same_release_and_an_unknown_one_take_everything() -> None:
    for release in ((6, 1, 0), (7, 0, 0), None):
        document = {**DATASET_61, "currency_code_column": "currency"}
        assert fit_for("datasets", document, release) == []
        assert document["currency_code_column"] == "currency"


def test_an_unseen_release_is_taken_as_the_newest_known_one_before_it() -> None:
    assert versions.known_as((6, 0, 0)) == (5, 0, 0)
    assert versions.known_as((7, 2, 0)) == (6, 1, 0)
    assert "theme_uuid" in [f.path for f in versions.not_taken("dashboards", (6, 0, 0))]
    assert versions.not_taken("dashboards", (6, 2, 0)) == []


def test_only_6_0_and_later_take_a_sparse_assets_import() -> None:
    assert versions.takes_sparse_assets_import((6, 1, 0))
    assert not versions.takes_sparse_assets_import((5, 0, 0))
    assert not versions.lists_uuids((4, 1, 2))  # refused: see test_superset_client


def _zip(files: dict[str, dict[str, Any]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, document in files.items():
            archive.writestr(name, yaml.safe_dump(document, allow_unicode=True))
    return out.getvalue()


def test_an_export_zip_is_fitted_file_by_file() -> None:
    bundle = _zip(
        {
            "export/metadata.yaml": {"version": "1.0.0", "type": "Dashboard"},
            "export/datasets/db/sales_orders.yaml": DATASET_61,
            "export/databases/db.yaml": {
                "database_name": "Демо-данные",
                "configuration_method": "sqlalchemy_form",
                "masked_encrypted_extra": None,
            },
        }
    )
    with zipfile.ZipFile(io.BytesIO(fit_bundle(bundle, (5, 0, 0)))) as fitted:
        dataset = yaml.safe_load(fitted.read("export/datasets/db/sales_orders.yaml"))
        database = yaml.safe_load(fitted.read("export/databases/db.yaml"))
        metadata = yaml.safe_load(fitted.read("export/metadata.yaml"))
    assert "folders" not in dataset
    assert database == {"database_name": "Демо-данные"}
    assert metadata == {"version": "1.0.0", "type": "Dashboard"}


def test_empty_fields_only_one_release_writes_do_not_tell_two_copies_apart() -> None:
    older = {"table_name": "t", "columns": [{"column_name": "a"}]}
    newer = {
        "table_name": "t",
        "folders": None,
        "columns": [{"column_name": "a", "datetime_format": None}],
    }
    versions.without_empty_new_fields("datasets", newer)
    assert newer == older
