"""Secrets to plant, for the tests that prove none leaves the server (issue 32 §1): names that read
as a secret in every casing and separator, the values they hold, and URLs that carry one."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from sstools.testing.fake_superset import FakeSuperset

# The names the issue lists, as words: each is spelled in every style below.
SECRET_NAMES: list[list[str]] = [
    ["api", "key"],
    ["apikey"],
    ["mapbox", "api", "key"],
    ["passwd"],
    ["pwd"],
    ["password"],
    ["db", "password"],
    ["secret"],
    ["client", "secret"],
    ["token"],
    ["access", "token"],
    ["refresh", "token"],
    ["private", "key"],
    ["bearer"],
    ["credentials"],
    ["encrypted", "extra"],
    ["x", "api", "key"],
    ["secret", "access", "key"],
]
SEPARATORS = ["_", "-", ".", " "]


def spelled(words: list[str], style: str) -> str:
    """``words`` as a key: snake, kebab, dotted, camel, Pascal, upper or run together."""
    if style == "camel":
        return words[0] + "".join(word.title() for word in words[1:])
    if style == "pascal":
        return "".join(word.title() for word in words)
    if style == "upper":
        return "_".join(words).upper()
    if style == "together":
        return "".join(words)
    return style.join(words)


secret_names = st.builds(
    spelled,
    st.sampled_from(SECRET_NAMES),
    st.sampled_from(["camel", "pascal", "upper", "together", *SEPARATORS]),
)
# A URL query's parameter names have no spaces.
query_names = st.builds(
    spelled,
    st.sampled_from(SECRET_NAMES),
    st.sampled_from(["camel", "pascal", "upper", "together", "_", "-", "."]),
)
# What a planted secret looks like: unique, so finding it anywhere is a leak.
secrets_ = st.text(alphabet="abcdefghjkmnpqrstuvwxyz23456789", min_size=16, max_size=32).map(
    lambda text: f"zq{text}"
)


@st.composite
def urls_with_a_secret(draw: st.DrawFn, secret: str) -> str:
    """A URL carrying ``secret``: a secret-named query parameter, or the userinfo's password."""
    name = draw(query_names)
    form = draw(st.sampled_from(["first", "later", "userinfo"]))
    if form == "userinfo":
        return f"postgresql://report:{secret}@db.example.org:5432/energy?sslmode=require"
    if form == "first":
        return f"https://tiles.example.org/v4/map.json?{name}={secret}&page=2"
    return f"https://tiles.example.org/v4/map.json?page=2&{name}={secret}"


# -- a dashboard whose chart and dataset carry a planted secret, in two environments -----------

CHART = "c0000000-0000-4000-8000-00000000000a"
DATASET = "d0000000-0000-4000-8000-00000000000b"
DATABASE = "e0000000-0000-4000-8000-00000000000c"
# What the target has: a plan from the source changes the chart's metric (shown as it is).
TARGET_PARAMS: dict[str, Any] = {"metric": "sum", "viz_type": "bar"}
TARGET_DATASET: dict[str, Any] = {
    "extra": json.dumps({"certified_by": "ops"}),
    "template_params": json.dumps({"region": "north"}),
}
SHOWN_METRIC = "count"  # the source's metric: a plan must still show it


@dataclass(frozen=True)
class Planted:
    """A secret and the source's chart params and dataset fields that carry it."""

    secret: str
    chart_params: dict[str, Any]
    dataset_fields: dict[str, Any]


@st.composite
def planted(draw: st.DrawFn) -> Planted:
    """A secret in a chart's params (flat, nested, in a list, in a URL) or in a dataset's extra
    or template params (as a name or in a URL), under any secret-looking name."""
    secret, name = draw(secrets_), draw(secret_names)
    url = draw(urls_with_a_secret(secret))
    where = draw(st.sampled_from(["params", "nested", "listed", "url", "extra", "template", "md"]))
    params: dict[str, Any] = {"metric": SHOWN_METRIC, "viz_type": "bar"}
    fields = dict(TARGET_DATASET)
    if where == "params":
        params[name] = secret
    elif where == "nested":
        params["layer"] = {"source": {name: secret, "kind": "tiles"}}
    elif where == "listed":
        params["layers"] = [{"kind": "tiles", name: secret}]
    elif where == "url":
        params["link"] = url
    elif where == "extra":
        fields["extra"] = json.dumps({"certified_by": "ops", name: secret})
    elif where == "template":
        fields["template_params"] = json.dumps({"region": "north", "connection": {name: secret}})
    else:
        fields["extra"] = json.dumps({"warning_markdown": f"Карта: [плитки]({url})"})
    return Planted(secret, params, fields)


def documents(chart_params: dict[str, Any], dataset_fields: dict[str, Any]) -> dict[str, Any]:
    """The chart, dataset and database of the dashboard, as an export holds them (kind → list),
    and the dashboard's layout that puts the chart on it."""
    database = {"uuid": DATABASE, "database_name": "Демо", "sqlalchemy_uri": "sqlite://"}
    dataset = {
        "uuid": DATASET,
        "table_name": "energy",
        "schema": "main",
        "database_uuid": DATABASE,
        "columns": [],
        "metrics": [],
        **dataset_fields,
    }
    chart = {
        "uuid": CHART,
        "slice_name": "Потребление",
        "dataset_uuid": DATASET,
        "params": chart_params,
    }
    return {"charts": [chart], "datasets": [dataset], "databases": [database]}


LAYOUT = {
    "position": {
        "CHART-1": {"type": "CHART", "id": "CHART-1", "meta": {"chartId": 1, "uuid": CHART}}
    }
}


def plant(source: FakeSuperset, target: FakeSuperset, planted: Planted) -> None:
    """The source environment's copy carries the secret, the target's is plain."""
    source.assets = documents(planted.chart_params, planted.dataset_fields)
    target.assets = documents(dict(TARGET_PARAMS), dict(TARGET_DATASET))
    source.dashboard_fields = target.dashboard_fields = LAYOUT
