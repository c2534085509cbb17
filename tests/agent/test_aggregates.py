"""A data question in words becomes a SELECT whose numbers are the right ones (issue 36).

Each question's SQL, as the offline planner writes it over the demo tables' columns, runs on the
sandbox's own demo SQLite file and returns what a hand-written query for the same question does.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlglot

from sstools.agent.fleet import ListedColumn
from sstools.agent.offline.aggregates import select
from sstools.sandbox.demo_data import create_demo_database


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    create_demo_database(path)
    return path


def _columns(conn: sqlite3.Connection, table: str) -> list[ListedColumn]:
    info = conn.execute("select name, type from pragma_table_info(?)", (table,)).fetchall()
    return [ListedColumn(name=name, type=kind.upper()) for name, kind in info]


@pytest.mark.parametrize(
    ("table", "question", "by_hand"),
    [
        (
            "weather_daily",
            "какая средняя температура по регионам?",
            "select region, avg(avg_temp_c) from weather_daily group by region order by region",
        ),
        (
            "sales_orders",
            "sum of revenue_rub by channel",
            "select channel, sum(revenue_rub) from sales_orders group by channel order by channel",
        ),
        (
            "energy_consumption",
            "какой максимальный пик нагрузки был в январе?",
            "select max(peak_load_mw) from energy_consumption where day like '2025-01-%'",
        ),
        (
            "sales_orders",
            "посчитай выручку по месяцам за 2025 год",
            "select substr(order_date, 1, 7), sum(revenue_rub) from sales_orders"
            " where order_date like '2025-%' group by 1 order by 1",
        ),
        (
            "energy_consumption",
            "how many distinct sectors are there?",
            "select count(distinct sector) from energy_consumption",
        ),
        ("regions", "сколько регионов в справочнике?", "select count(*) from regions"),
        (
            "regions",
            "which federal district has the most people",  # people: the population column
            "select federal_district, sum(population_thousands) from regions"
            " group by 1 order by 2 desc limit 1",
        ),
        (
            "sales_orders",
            "top 3 regions by revenue",
            "select region, sum(revenue_rub) from sales_orders group by region"
            " order by 2 desc limit 3",
        ),
        (
            "weather_daily",
            "srednyaya temperatura po regionam letom",  # translit, a season
            "select region, avg(avg_temp_c) from weather_daily"
            " where substr(day, 6, 2) in ('06', '07', '08') group by region order by region",
        ),
        (
            "sales_orders",
            "сколько заказов было в декабре?",  # an identifier is counted, never summed
            "select count(*) from sales_orders where order_date like '%-12-%'",
        ),
        (
            "weather_daily",
            "what's the date range in this dataset?",
            "select min(day), max(day) from weather_daily",
        ),
        (
            "sales_orders",
            "есть ли пустые значения в колонке region?",
            "select count(*), sum(region is null) from sales_orders",
        ),
        (  # «больше всего»: the group ranked by its total, the first row the answer
            "energy_consumption",
            "какой сектор у нас потребляет больше всего электричества?",
            "select sector, sum(consumption_mwh) from energy_consumption group by sector"
            " order by 2 desc limit 1",
        ),
        (  # "the coldest day": the row itself, its day shown
            "weather_daily",
            "what was the coldest day in this data?",
            "select day, avg_temp_c from weather_daily order by avg_temp_c limit 1",
        ),
        (  # «в Москве»: the rows that hold the name, in whatever text column it is
            "weather_daily",
            "средняя температура в Москве в январе",
            "select avg(avg_temp_c) from weather_daily"
            " where day like '%-01-%' and region = 'Москва'",
        ),
        (
            "weather_daily",
            "what's the latest date in here?",
            "select min(day), max(day) from weather_daily",
        ),
        (  # a measure with a period and no function named: its total there
            "sales_orders",
            "выручка по Москве за 2025?",
            "select sum(revenue_rub) from sales_orders"
            " where order_date like '2025-%' and region = 'Москва'",
        ),
        (  # a follow-up's own name replaces the earlier one's
            "sales_orders",
            "выручка по Москве за 2025? а по Татарстану?",
            "select sum(revenue_rub) from sales_orders"
            " where order_date like '2025-%' and region = 'Республика Татарстан'",
        ),
    ],
)
def test_the_question_s_select_returns_what_a_hand_written_query_does(
    demo: Path, table: str, question: str, by_hand: str
) -> None:
    with sqlite3.connect(demo) as conn:
        sql = select(question, f'"{table}"', _columns(conn, table), "sqlite")
        assert sql is not None, question
        assert conn.execute(sql).fetchall() == conn.execute(by_hand).fetchall()


@pytest.mark.parametrize(
    "question",
    [
        "какие колонки и типы?",  # the schema, not a query
        "средний возраст клиентов",  # no such column: asked, never guessed
        "средняя выручка по месяцам",  # months of a table with no date
    ],
)
def test_what_it_cannot_place_is_left_to_the_person(demo: Path, question: str) -> None:
    columns = [
        ListedColumn(name="region", type="TEXT"),
        ListedColumn(name="revenue_rub", type="REAL"),
    ]
    assert select(question, '"t"', columns, "sqlite") is None


def test_other_databases_get_their_own_dialect() -> None:
    columns = [
        ListedColumn(name="order_date", type="DATE"),
        ListedColumn(name="revenue", type="NUMERIC"),
    ]
    sql = select("total revenue by month in 2025", '"orders"', columns, "postgresql")
    assert sql is not None
    assert "strftime" not in sql  # SQLite's date functions stay SQLite's
    parsed = sqlglot.parse_one(sql, read="postgres")
    assert parsed.find(sqlglot.exp.Group) is not None
    mysql = select("total revenue by month in 2025", '"orders"', columns, "mysql")
    assert mysql is not None
    assert "`orders`" in mysql  # MySQL quotes with backticks
