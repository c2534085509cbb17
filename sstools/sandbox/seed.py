"""Demo content, created in dev through Superset's REST API; running it again creates nothing twice.

Dev gets the datasets, charts and dashboards in a fixed order (so «Отчёт по энергопотреблению» is
dashboard 10); staging and prod then receive dev's released dashboards by export → import
(:mod:`sstools.sandbox.promote`), so every object keeps dev's UUID, as in a real fleet. Afterwards
the environments differ the way real ones do: a draft exists only in dev, dev's «Energy KPIs» was
edited after release, and a chart lost its dataset everywhere.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sstools.superset import SupersetClient

DATABASE_NAME = "Демо-данные"
DEV_ONLY_DASHBOARD = "Прогноз нагрузки (черновик)"
DRIFTED_DASHBOARD = "Energy KPIs"
DRIFT_MARKER = "/* dev revision 2: KPI tiles reordered */"
BROKEN_DATASET = "tariffs_legacy"
VIEWER_ROLE = "energy_viewers"


def _sum(column: str) -> dict[str, Any]:
    return {
        "expressionType": "SIMPLE",
        "column": {"column_name": column},
        "aggregate": "SUM",
        "label": f"SUM({column})",
    }


@dataclass(frozen=True)
class ChartSpec:
    name: str
    table: str
    viz_type: str
    params: dict[str, Any]
    dashboards: tuple[str, ...]


@dataclass(frozen=True)
class DashboardSpec:
    title: str
    slug: str
    published: bool = True
    dev_only: bool = False


DATASETS = ("energy_consumption", "regions", "sales_orders", "weather_daily")

DASHBOARDS = (
    DashboardSpec("Продажи по регионам", "sales-regions"),
    DashboardSpec("Executive Summary", "executive-summary"),
    DashboardSpec("Погода и нагрузка", "weather-load"),
    DashboardSpec("Regional Sales Trends", "regional-sales-trends"),
    DashboardSpec("Мониторинг сетей", "grid-monitoring"),
    DashboardSpec(DRIFTED_DASHBOARD, "energy-kpis"),
    DashboardSpec("Каналы продаж", "sales-channels"),
    DashboardSpec("Weather Overview", "weather-overview"),
    DashboardSpec("Пиковые нагрузки", "peak-load"),
    DashboardSpec("Отчёт по энергопотреблению", "energy-report"),
    DashboardSpec("Customer Revenue", "customer-revenue"),
    DashboardSpec("Тарифы 2023 (архив)", "tariffs-2023", published=False),
    DashboardSpec(DEV_ONLY_DASHBOARD, "load-forecast-draft", published=False, dev_only=True),
)

CHARTS = (
    ChartSpec(
        "Потребление по регионам",
        "energy_consumption",
        "table",
        {
            "query_mode": "aggregate",
            "groupby": ["region"],
            "metrics": [_sum("consumption_mwh")],
            "row_limit": 100,
        },
        ("Отчёт по энергопотреблению", "Мониторинг сетей"),
    ),
    ChartSpec(
        "Динамика потребления",
        "energy_consumption",
        "echarts_timeseries_line",
        {
            "x_axis": "day",
            "time_grain_sqla": "P1M",
            "metrics": [_sum("consumption_mwh")],
            "groupby": ["region"],
        },
        ("Отчёт по энергопотреблению", DRIFTED_DASHBOARD, "Пиковые нагрузки"),
    ),
    ChartSpec(
        "Структура по секторам",
        "energy_consumption",
        "pie",
        {"groupby": ["sector"], "metric": _sum("consumption_mwh")},
        ("Отчёт по энергопотреблению", "Мониторинг сетей"),
    ),
    ChartSpec(
        "Пиковая нагрузка, МВт",
        "energy_consumption",
        "big_number_total",
        {"metric": {**_sum("peak_load_mw"), "aggregate": "MAX", "label": "MAX(peak_load_mw)"}},
        ("Пиковые нагрузки", DRIFTED_DASHBOARD, "Executive Summary"),
    ),
    ChartSpec(
        "Revenue by Region",
        "sales_orders",
        "table",
        {"query_mode": "aggregate", "groupby": ["region"], "metrics": [_sum("revenue_rub")]},
        ("Продажи по регионам", "Regional Sales Trends", "Customer Revenue", "Executive Summary"),
    ),
    ChartSpec(
        "Monthly Revenue",
        "sales_orders",
        "echarts_timeseries_line",
        {"x_axis": "order_date", "time_grain_sqla": "P1M", "metrics": [_sum("revenue_rub")]},
        ("Regional Sales Trends", "Customer Revenue", "Каналы продаж"),
    ),
    ChartSpec(
        "Средняя температура",
        "weather_daily",
        "echarts_timeseries_line",
        {
            "x_axis": "day",
            "time_grain_sqla": "P1W",
            "metrics": [{**_sum("avg_temp_c"), "aggregate": "AVG", "label": "AVG(avg_temp_c)"}],
            "groupby": ["region"],
        },
        ("Погода и нагрузка", "Weather Overview"),
    ),
    ChartSpec(
        "Население регионов",
        "regions",
        "table",
        {
            "query_mode": "raw",
            "all_columns": ["region", "federal_district", "population_thousands"],
        },
        ("Продажи по регионам", "Погода и нагрузка", "Каналы продаж"),
    ),
    ChartSpec(
        "Тарифы (устаревшие)",
        BROKEN_DATASET,
        "table",
        {"query_mode": "raw", "all_columns": ["tariff", "region", "price_rub_kwh"]},
        ("Тарифы 2023 (архив)",),
    ),
    ChartSpec(
        "Прогноз потребления (черновик)",
        "energy_consumption",
        "echarts_timeseries_line",
        {"x_axis": "day", "time_grain_sqla": "P1W", "metrics": [_sum("consumption_mwh")]},
        (DEV_ONLY_DASHBOARD,),
    ),
)


@dataclass
class SeedReport:
    env_id: str
    created: list[str] = field(default_factory=list)


async def _ids_by(client: SupersetClient, resource: str, name_column: str) -> dict[str, int]:
    rows = await client.list_all(resource, columns=["id", name_column])
    return {row[name_column]: row["id"] for row in rows}


async def seed_dev(client: SupersetClient, demo_uri: str) -> SeedReport:
    """Dev's content through the REST API, the broken chart's dataset still there to export."""
    report = SeedReport(client.env.id)

    databases = {database.name: database.id for database in await client.list_databases()}
    if DATABASE_NAME not in databases:
        body = await client.post_json(
            "/api/v1/database/",
            {
                "database_name": DATABASE_NAME,
                "sqlalchemy_uri": demo_uri,
                "expose_in_sqllab": True,
                "allow_dml": True,  # an engineer's DML may run; sstools refuses analysts'
            },
        )
        databases[DATABASE_NAME] = body["id"]
        report.created.append(f"database {DATABASE_NAME}")
    database_id = databases[DATABASE_NAME]

    datasets = await _ids_by(client, "dataset", "table_name")
    for table in DATASETS:
        if table not in datasets:
            body = await client.post_json(
                "/api/v1/dataset/", {"database": database_id, "table_name": table, "schema": "main"}
            )
            datasets[table] = body["id"]
            report.created.append(f"dataset {table}")

    dashboards = await _ids_by(client, "dashboard", "dashboard_title")
    for spec in DASHBOARDS:
        if spec.title not in dashboards:
            body = await client.post_json(
                "/api/v1/dashboard/",
                {
                    "dashboard_title": spec.title,
                    "slug": spec.slug,
                    "published": spec.published,
                    # What Superset's editor saves, and an import adds: dev and prod agree.
                    "json_metadata": json.dumps({"native_filter_configuration": []}),
                },
            )
            dashboards[spec.title] = body["id"]
            report.created.append(f"dashboard {spec.title}")

    charts = await _ids_by(client, "chart", "slice_name")
    for chart in CHARTS:
        if chart.name in charts:
            continue
        if chart.table not in datasets:  # only the broken chart's, dropped after promotion
            body = await client.post_json(
                "/api/v1/dataset/",
                {"database": database_id, "table_name": chart.table, "schema": "main"},
            )
            datasets[chart.table] = body["id"]
        dataset_id = datasets[chart.table]
        body = await client.post_json(
            "/api/v1/chart/",
            {
                "slice_name": chart.name,
                "viz_type": chart.viz_type,
                "datasource_id": dataset_id,
                "datasource_type": "table",
                "params": json.dumps(
                    {
                        "viz_type": chart.viz_type,
                        "datasource": f"{dataset_id}__table",
                        "annotation_layers": [],  # likewise
                        **chart.params,
                    },
                    ensure_ascii=False,
                ),
                "dashboards": [dashboards[title] for title in chart.dashboards],
            },
        )
        charts[chart.name] = body["id"]
        report.created.append(f"chart {chart.name}")
    return report


async def finish(client: SupersetClient, report: SeedReport, *, is_dev: bool) -> None:
    """What happened after the release, once every environment has its content."""
    datasets = await _ids_by(client, "dataset", "table_name")
    if BROKEN_DATASET in datasets:
        # A chart whose dataset was dropped later: the dashboard health check must notice.
        await client.delete(f"/api/v1/dataset/{datasets[BROKEN_DATASET]}")
        report.created.append(f"chart without its dataset {BROKEN_DATASET}")

    if is_dev:
        dashboards = await _ids_by(client, "dashboard", "dashboard_title")
        drifted = dashboards[DRIFTED_DASHBOARD]
        current = await client.get_json(f"/api/v1/dashboard/{drifted}")
        if DRIFT_MARKER not in (current["result"].get("css") or ""):
            await client.put_json(f"/api/v1/dashboard/{drifted}", {"css": DRIFT_MARKER})
            report.created.append(f"dev revision of {DRIFTED_DASHBOARD}")

    await _ensure_viewer_role(client, datasets["energy_consumption"], report)


async def _ensure_viewer_role(client: SupersetClient, dataset_id: int, report: SeedReport) -> None:
    """A narrow role that may read dashboards and only the energy dataset, for permission audits."""
    roles = await client.list_all("security/roles", columns=["id", "name"])  # every release's
    if any(role["name"] == VIEWER_ROLE for role in roles):
        return
    pairs = await client.list_all(
        "security/permissions-resources", columns=["id", "permission.name", "view_menu.name"]
    )
    wanted = {("can_read", "Dashboard"), ("can_read", "Dataset"), ("can_read", "Chart")}
    ids = [
        pair["id"]
        for pair in pairs
        if (pair["permission"]["name"], pair["view_menu"]["name"]) in wanted
        or (
            pair["permission"]["name"] == "datasource_access"
            and pair["view_menu"]["name"].endswith(f"(id:{dataset_id})")
        )
    ]
    body = await client.post_json("/api/v1/security/roles/", {"name": VIEWER_ROLE})
    await client.post_json(
        f"/api/v1/security/roles/{body['id']}/permissions", {"permission_view_menu_ids": ids}
    )
    report.created.append(f"role {VIEWER_ROLE}")
