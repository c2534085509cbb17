"""Superset's raw JSON → our models, one ``from_api`` per shape, with no server."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sstools.superset.models import (
    ChartRef,
    Column,
    DashboardDetail,
    Database,
    DatasetDetail,
    DatasetSummary,
    Page,
    RolePermissions,
    SqlResult,
)


def test_a_dashboard_maps_owners_roles_charts_and_datasets() -> None:
    dashboard = DashboardDetail.from_api(
        {
            "id": 10,
            "dashboard_title": "Отчёт",
            "published": 1,
            "changed_on_utc": "2026-11-01T10:00:00",
            "owners": [{"id": 1, "first_name": "Ирина", "last_name": None}, {"username": "svc"}],
            "roles": [{"id": 3, "name": "Gamma"}],
            "json_metadata": '{"color_scheme": "x"}',
        },
        charts=[
            {
                "id": 1,
                "slice_name": "Живой",
                "form_data": {"datasource": "7__table", "viz_type": "bar"},
            },
            {"id": 2, "slice_name": "Сирота", "form_data": {"datasource": "None__table"}},
        ],
        datasets=[
            {"id": 7, "table_name": "energy", "database": {"id": 1, "database_name": "demo"}}
        ],
        superset_url="http://superset.test",
    )
    assert dashboard.url == "http://superset.test/superset/dashboard/10/"
    assert dashboard.changed_on == datetime(2026, 11, 1, 10, tzinfo=UTC)  # offset added
    assert [owner.name for owner in dashboard.owners] == ["Ирина", "svc"]
    assert dashboard.roles == ["Gamma"]
    assert [(c.name, c.viz_type, c.dataset_id) for c in dashboard.charts] == [
        ("Живой", "bar", 7),
        ("Сирота", None, None),
    ]
    assert dashboard.datasets == [
        DatasetSummary(id=7, name="energy", database_id=1, database_name="demo")
    ]
    assert dashboard.json_metadata == {"color_scheme": "x"}


def test_a_dataset_maps_its_columns_and_dependents() -> None:
    dataset = DatasetDetail.from_api(
        {
            "id": 7,
            "table_name": "energy",
            "schema": "main",
            "database": {"id": 1, "database_name": "demo", "backend": "sqlite"},
            "columns": [{"column_name": "day", "type": "DATE"}],
            "metrics": [{"metric_name": "count"}],
        },
        related={
            "charts": {"result": [{"id": 4, "slice_name": "Пик", "viz_type": "line"}]},
            "dashboards": {"result": [{"id": 10, "title": "Отчёт"}]},
        },
    )
    assert dataset.schema_ == "main"
    assert dataset.database_backend == "sqlite"
    assert dataset.columns == [Column(name="day", type="DATE")]
    assert dataset.metrics == ["count"]
    assert dataset.charts == [ChartRef(id=4, name="Пик", viz_type="line", dataset_id=7)]
    assert [dash.title for dash in dataset.dashboards] == ["Отчёт"]


def test_the_other_shapes() -> None:
    assert Column.from_api({"name": "region", "type": "TEXT"}) == Column(name="region", type="TEXT")
    assert DatasetSummary.from_api({"id": 1, "datasource_name": "v"}).name == "v"
    assert Database.from_api({"database_name": "demo"}, database_id=5).id == 5
    role = RolePermissions.from_api(
        {"name": "Gamma", "permission_ids": [1, 99]}, {1: ("can_read", "Dashboard")}
    )
    assert role.permissions == [("can_read", "Dashboard")]  # an unknown pair id is skipped
    result = SqlResult.from_api(
        {"columns": [{"column_name": "a"}, {"name": "b"}], "data": [{"a": 1}] * 3}, row_limit=2
    )
    assert (result.columns, result.row_count, result.limited) == (["a", "b"], 2, True)


@pytest.mark.parametrize(("page", "expected"), [(0, [0, 1]), (2, [4]), (3, [])])
def test_a_page_of_what_was_found(page: int, expected: list[int]) -> None:
    found = Page.of(list(range(5)), page=page, page_size=2)
    assert (found.items, found.total, found.page, found.page_size) == (expected, 5, page, 2)
