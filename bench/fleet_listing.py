"""The fleet listing the planner bench hands the offline planner, as the sandbox makes it.

In the app the graph reads it over HTTP at the start of an offline turn
(:class:`sstools.agent.fleet.FleetReader`); the bench plans without a server, so it hands the
listing the sandbox's own seed makes (:mod:`sstools.sandbox.seed`): dev's dashboards in the
order the seed creates them (so «Отчёт по энергопотреблению» is 10, as in the sandbox), staging's
and prod's as :mod:`sstools.sandbox.promote` imports them (the released ones, sorted by title),
the four datasets in each (with their columns, as the graph reads the page's dataset's), and the
task records: a day of deploys, migrations and backups written by hand in the API's shape
(``bench/data/fleet_history.json``: the seed makes none), then those recorded from the sandbox
(``bench/data/answers/tasks.json``: a backup, a documentation, a validation).
"""

from __future__ import annotations

import json
import sqlite3
from functools import cache
from pathlib import Path

from sstools.agent.fleet import Fleet, Listed, ListedColumn, ListedDataset, ListedTask
from sstools.sandbox.demo_data import SCHEMA
from sstools.sandbox.fleet import INSTANCES
from sstools.sandbox.seed import DASHBOARDS, DATASETS

DATA = Path(__file__).resolve().parent / "data"
TASK_FILES = (DATA / "fleet_history.json", DATA / "answers" / "tasks.json")  # newest first


def _columns(table: str) -> list[ListedColumn]:
    """A demo table's columns as Superset lists them (name, SQLite's declared type)."""
    with sqlite3.connect(":memory:") as conn:
        conn.executescript(SCHEMA)
        info = conn.execute("select name, type from pragma_table_info(?)", (table,)).fetchall()
    return [ListedColumn(name=name, type=kind.upper()) for name, kind in info]


@cache
def recorded_fleet() -> Fleet:
    dev, *others = (one.env_id for one in INSTANCES)
    dashboards = [
        Listed(env_id=dev, id=number, title=spec.title)
        for number, spec in enumerate(DASHBOARDS, start=1)
    ]
    released = sorted(spec.title for spec in DASHBOARDS if not spec.dev_only)
    dashboards += [
        Listed(env_id=env, id=number, title=title)
        for env in others
        for number, title in enumerate(released, start=1)
    ]
    datasets = [
        ListedDataset(
            env_id=env,
            id=number,
            name=name,
            schema_name="main",
            database_id=1,
            columns=_columns(name),
            database_backend="sqlite",
        )
        for env in (dev, *others)
        for number, name in enumerate(DATASETS, start=1)
    ]
    tasks = [
        ListedTask.model_validate(task)
        for path in TASK_FILES
        for task in json.loads(path.read_text(encoding="utf-8"))["payload"]
    ]
    return Fleet(dashboards=dashboards, datasets=datasets, tasks=tasks)
