"""The demo data source: a SQLite file with energy, sales, weather and region tables.

Deterministic (seeded), so every environment and every run sees the same numbers.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import date, timedelta
from pathlib import Path

REGIONS = [
    ("Москва", "Центральный", 13_150),
    ("Санкт-Петербург", "Северо-Западный", 5_600),
    ("Новосибирская область", "Сибирский", 2_790),
    ("Свердловская область", "Уральский", 4_240),
    ("Краснодарский край", "Южный", 5_840),
    ("Республика Татарстан", "Приволжский", 4_000),
    ("Приморский край", "Дальневосточный", 1_820),
    ("Мурманская область", "Северо-Западный", 660),
]
SECTORS = ["Промышленность", "Население", "Коммерция"]
PRODUCTS = ["Счётчик электроэнергии", "Тариф «Базовый»", "Тариф «Зелёный»", "Сервисный контракт"]
CHANNELS = ["Онлайн", "Офис", "Партнёры"]
TABLES = ("energy_consumption", "regions", "sales_orders", "weather_daily", "tariffs_legacy")
SCHEMA = """
create table regions (region text primary key, federal_district text,
                      population_thousands integer);
create table energy_consumption (day date, region text, sector text,
                                 consumption_mwh real, peak_load_mw real);
create table sales_orders (order_id integer primary key, order_date date, region text,
                           product text, channel text, quantity integer, revenue_rub real);
create table weather_daily (day date, region text, avg_temp_c real, precipitation_mm real);
create table tariffs_legacy (tariff text, region text, price_rub_kwh real);
"""


def create_demo_database(path: Path) -> None:
    """Write the demo SQLite file (replacing a partial one) unless it is complete already."""
    if path.is_file():
        with sqlite3.connect(path) as conn:
            names = {row[0] for row in conn.execute("select name from sqlite_master")}
        if set(TABLES) <= names:
            return
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(35)  # noqa: S311 - demo numbers, not secrets
    start = date(2025, 1, 1)
    days = [start + timedelta(days=offset) for offset in range(365)]
    iso_days = [day.isoformat() for day in days]  # sqlite3's date adapter is deprecated
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    with sqlite3.connect(tmp) as conn:
        conn.executescript(SCHEMA)
        conn.executemany("insert into regions values (?, ?, ?)", REGIONS)
        energy, weather = [], []
        for day in days:
            winter, summer = day.month in (12, 1, 2), day.month in (6, 7, 8)
            season = 1.35 if winter else 0.86 if summer else 1.0
            for region, _, population in REGIONS:
                for share, sector in zip((0.5, 0.3, 0.2), SECTORS, strict=True):
                    mwh = population * 0.012 * share * season * rng.uniform(0.9, 1.1)
                    energy.append(
                        (day.isoformat(), region, sector, round(mwh, 2), round(mwh / 18, 2))
                    )
                temp = -12 + 30 * (1 - abs(day.timetuple().tm_yday - 196) / 182) + rng.gauss(0, 3)
                weather.append(
                    (day.isoformat(), region, round(temp, 1), round(max(0, rng.gauss(1.5, 2)), 1))
                )
        conn.executemany("insert into energy_consumption values (?, ?, ?, ?, ?)", energy)
        conn.executemany("insert into weather_daily values (?, ?, ?, ?)", weather)
        orders = []
        for order_id in range(1, 5001):
            quantity = rng.randint(1, 20)
            orders.append(
                (
                    order_id,
                    rng.choice(iso_days),
                    rng.choice(REGIONS)[0],
                    rng.choice(PRODUCTS),
                    rng.choice(CHANNELS),
                    quantity,
                    round(quantity * rng.uniform(900, 4500), 2),
                )
            )
        conn.executemany("insert into sales_orders values (?, ?, ?, ?, ?, ?, ?)", orders)
        conn.executemany(
            "insert into tariffs_legacy values (?, ?, ?)",
            [("Базовый 2023", region, round(rng.uniform(4, 7), 2)) for region, _, _ in REGIONS],
        )
    tmp.replace(path)
