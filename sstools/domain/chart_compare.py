"""The same filtered view in two environments: «почему в prod цифры другие, чем в staging?».

The dashboard is followed to the other environment by UUID; both sides' charts are read with the
same filters (``chart_data.py``), paired by name, and their rows by their group-by values; every
number that differs is named. Whether the dashboards themselves differ (a deploy between them
would change something) comes from the same verdict the dashboard page's «Окружения» table shows.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from sstools.domain.chart_data import ChartData, dashboard_data
from sstools.domain.placement import dashboard_placements
from sstools.environments import Environment
from sstools.git_store import GitStore
from sstools.http.dashboard_filters import DashboardFilter
from sstools.http.objects import ObjectKind, same_object_in
from sstools.superset import SupersetNotFound, SupersetPool
from sstools.texts import dashboards as texts

MAX_DIFFERENCES = 20  # per chart: enough to see where, bounded for the model and the page


class ValueDifference(BaseModel):
    """One number of one row that the two environments show differently (None: no such row)."""

    row: list[Any]  # the row's group-by values; empty for a chart of one number
    column: str
    here: Any
    there: Any


class ChartComparison(BaseModel):
    name: str
    chart_id: int
    other_chart_id: int | None  # None: the other environment's dashboard has no chart of that name
    filters_applied: list[str]
    differs: bool
    differences: list[ValueDifference]
    more_differences: int  # beyond those listed
    error: str | None = None


class DataComparison(BaseModel):
    env_id: str
    other_env_id: str
    dashboard_id: int
    other_dashboard_id: int | None  # None: the other environment has no such dashboard
    filters: list[DashboardFilter]
    charts: list[ChartComparison]
    differing_charts: int
    # A deploy from env_id would change the other's copy (None: not known, or it is absent).
    dashboards_differ: bool | None


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, int | float) and isinstance(right, int | float):
        return math.isclose(float(left), float(right), rel_tol=1e-9, abs_tol=1e-9)
    return bool(left == right)


def _by_key(chart: ChartData) -> dict[tuple[Any, ...], dict[str, Any]]:
    at = [chart.columns.index(name) for name in chart.key_columns if name in chart.columns]
    return {
        tuple(row[i] for i in at): dict(zip(chart.columns, row, strict=False)) for row in chart.rows
    }


def _differences(here: ChartData, there: ChartData) -> list[ValueDifference]:
    mine, theirs = _by_key(here), _by_key(there)
    numbers = [name for name in here.columns if name not in here.key_columns]
    found: list[ValueDifference] = []
    for key in [*mine, *(key for key in theirs if key not in mine)]:
        left, right = mine.get(key, {}), theirs.get(key, {})
        for column in numbers:
            if not _same(left.get(column), right.get(column)):
                found.append(
                    ValueDifference(
                        row=list(key), column=column, here=left.get(column), there=right.get(column)
                    )
                )
    return found


def _compared(here: ChartData, there: ChartData | None) -> ChartComparison:
    differences = [] if there is None else _differences(here, there)
    error = here.error or (there.error if there else None)
    return ChartComparison(
        name=here.name,
        chart_id=here.chart_id,
        other_chart_id=there.chart_id if there else None,
        filters_applied=here.filters_applied,
        differs=there is None or bool(differences),
        differences=differences[:MAX_DIFFERENCES],
        more_differences=max(0, len(differences) - MAX_DIFFERENCES),
        error=error,
    )


async def compare_data(
    pool: SupersetPool,
    git: GitStore,
    environments: Sequence[Environment],
    env_id: str,
    dashboard_id: int,
    other_env_id: str,
    filters: Sequence[DashboardFilter],
    *,
    in_env_id: str | None = None,
) -> DataComparison:
    """The numbers of ``env_id``'s dashboard in ``in_env_id`` (``env_id`` by default) and in
    ``other_env_id`` — the same dashboard, followed by UUID — with the same filters, side by side.

    Raises:
        SupersetNotFound: ``env_id`` has no such dashboard, or ``in_env_id`` has none like it.
    """
    first_env = in_env_id or env_id
    first, other = await asyncio.gather(
        same_object_in(pool, env_id, ObjectKind.dashboard, dashboard_id, first_env),
        same_object_in(pool, env_id, ObjectKind.dashboard, dashboard_id, other_env_id),
    )
    if first.object_id is None:
        raise SupersetNotFound(first_env, texts.NOT_IN_ENVIRONMENT.format(env=first_env))
    here_data = dashboard_data(pool.client(first_env), first.object_id, filters, row_limit=100)
    if other.object_id is None:
        here = await here_data
        charts = [_compared(chart, None) for chart in here.charts]
        return DataComparison(
            env_id=first_env,
            other_env_id=other_env_id,
            dashboard_id=first.object_id,
            other_dashboard_id=None,
            filters=list(filters),
            charts=charts,
            differing_charts=len(charts),
            dashboards_differ=None,
        )
    pair = [env for env in environments if env.id in (first_env, other_env_id)]
    here, there, placements = await asyncio.gather(
        here_data,
        dashboard_data(pool.client(other_env_id), other.object_id, filters, row_limit=100),
        dashboard_placements(pool, pair, git, pool.client(first_env), first.object_id),
    )
    theirs = {chart.name: chart for chart in there.charts}
    charts = [_compared(chart, theirs.get(chart.name)) for chart in here.charts]
    rows = placements.environments
    verdict = next((row.differs for row in rows if row.env_id == other_env_id), None)
    return DataComparison(
        env_id=first_env,
        other_env_id=other_env_id,
        dashboard_id=first.object_id,
        other_dashboard_id=other.object_id,
        filters=list(filters),
        charts=charts,
        differing_charts=sum(chart.differs for chart in charts),
        dashboards_differ=verdict,
    )
