"""No secret in a plan (issue 32 §1): a secret planted in a chart's params, a dataset's extra or
template params — under any secret-looking name, or in a URL — never reaches the plan's changes,
built by the domain function or answered by ``POST /api/deploy/plan``; what is not a secret
(the chart's metric) is still shown."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import NAMESPACE_URL, uuid5

import httpx
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as examples

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.domain.deploy import (
    DeploySource,
    Inventory,
    Sources,
    TargetObject,
    build_plan,
    map_sources,
    portable,
)
from sstools.domain.deploy.models import Plan
from sstools.environments import Stage
from sstools.git_store import dump
from sstools.redaction import MASK
from sstools.testing import LiveServer
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.conftest import AuthHeaders
from tests.planted_secrets import (
    CHART,
    DATABASE,
    DATASET,
    LAYOUT,
    SHOWN_METRIC,
    TARGET_DATASET,
    TARGET_PARAMS,
    Planted,
    documents,
    plant,
    planted,
)
from tests.rig import REPORT_ID, report_superset, settings_for_places

DASH = str(uuid5(NAMESPACE_URL, str(REPORT_ID)))  # the fake's uuid of that dashboard


def _files(kinds: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found = {f"{kind}/{one['uuid']}.yaml": one for kind, many in kinds.items() for one in many}
    board = {"uuid": DASH, "dashboard_title": "Отчёт", **LAYOUT}
    return found | {f"dashboards/{DASH}.yaml": board}


def _plan(secret: Planted) -> Plan:
    source = _files(documents(secret.chart_params, secret.dataset_fields))
    target = _files(documents(dict(TARGET_PARAMS), dict(TARGET_DATASET)))
    inventory = Inventory(
        {
            kind: {uuid: TargetObject(number, uuid, "t", None)}
            for number, (kind, uuid) in enumerate(
                [
                    ("dashboards", DASH),
                    ("charts", CHART),
                    ("datasets", DATASET),
                    ("databases", DATABASE),
                ],
                1,
            )
        }
    )
    return build_plan(
        map_sources(Sources({DASH: source}), inventory, None),
        source=DeploySource(env_id="ss-dev"),
        target_env_id="prod",
        target_stage=Stage.prod,
        found=inventory,
        target_files={path: dump(document) for path, document in target.items()},
    ).plan


def _metric_shown(plan: dict[str, Any]) -> bool:
    return any(
        change["field"] == "params.metric" and change["after"] == SHOWN_METRIC
        for one in plan["objects"]
        for change in one.get("changes") or []
    )


# 200: a pure plan over planted documents; cheap, and the planted forms are many.
@examples(max_examples=200, deadline=None)
@given(planted())
def test_a_planted_secret_never_reaches_the_plan_built_by_the_domain(secret: Planted) -> None:
    plan = _plan(secret).model_dump(mode="json")
    assert secret.secret not in json.dumps(plan, ensure_ascii=False)
    assert _metric_shown(plan)


@pytest.mark.parametrize(
    ("params", "masked"),
    [
        ({"api_key": "zqk1"}, "params.api_key"),
        ({"apiKey": "zqk1"}, "params.apiKey"),
        ({"apikey": "zqk1"}, "params.apikey"),
        ({"mapbox_api_key": "zqk1"}, "params.mapbox_api_key"),
        ({"passwd": "zqk1"}, "params.passwd"),
        ({"pwd": "zqk1"}, "params.pwd"),
        ({"auth": {"bearer": "zqk1"}}, "params.auth"),
        ({"tiles": {"auth.bearer": "zqk1"}}, "params.tiles"),
    ],
)
def test_each_named_form_in_a_charts_params_is_masked(params: dict[str, Any], masked: str) -> None:
    plan = _plan(Planted("zqk1", {"metric": SHOWN_METRIC, **params}, dict(TARGET_DATASET)))
    changes = {one.field: one for change in plan.objects for one in change.changes}
    assert changes[masked].before is None  # the target has no such key
    assert MASK in (changes[masked].after or "")
    assert "zqk1" not in plan.model_dump_json()


def test_a_token_in_a_url_is_masked_and_the_rest_of_the_url_shown() -> None:
    link = "https://tiles.example.org/v4?access_token=zqk1&style=dark"
    plan = _plan(Planted("zqk1", {"metric": SHOWN_METRIC, "link": link}, dict(TARGET_DATASET)))
    [link_change] = [one for c in plan.objects for one in c.changes if one.field == "params.link"]
    assert link_change.after == f"https://tiles.example.org/v4?access_token={MASK}&style=dark"


def test_a_dataset_extra_and_template_params_keep_what_is_not_secret() -> None:
    fields = {
        "extra": json.dumps({"certified_by": "ops", "warning_markdown": "Новое", "pwd": "zqk1"}),
        "template_params": json.dumps({"region": "south", "auth.bearer": "zqk1"}),
    }
    plan = _plan(Planted("zqk1", {"metric": SHOWN_METRIC}, fields))
    changes = {one.field: one for c in plan.objects if c.kind == "dataset" for one in c.changes}
    assert changes["extra"].after is not None
    assert "Новое" in changes["extra"].after
    assert changes["template_params"].after is not None
    assert "south" in changes["template_params"].after
    assert "zqk1" not in plan.model_dump_json()


def test_a_database_compares_as_its_allow_listed_connection() -> None:
    connection = {
        "uuid": DATABASE,
        "database_name": "Демо",
        "sqlalchemy_uri": "postgresql://report:zqk1@db.example.org/energy",
        "password": "zqk1",
        "extra": {"engine_params": {"connect_args": {"sslmode": "require", "api_key": "zqk1"}}},
    }
    shown = portable("databases", connection)
    assert "zqk1" not in json.dumps(shown)
    assert shown["extra"] == {"engine_params": {"connect_args": {"sslmode": "require"}}}


# -- the same over HTTP: POST /api/deploy/plan, the source and the target each a fake ----------


@pytest.fixture
def fleet() -> tuple[FakeSuperset, FakeSuperset]:
    return report_superset(), report_superset()


@pytest.fixture
async def settings(tmp_path: Path, fleet: tuple[FakeSuperset, FakeSuperset]) -> Settings:
    source, _ = fleet
    places = [
        ("ss-dev", "ss-dev", "dev", "http://superset.test"),
        ("staging", "staging", "staging", "http://staging.superset.test"),
    ]
    return await settings_for_places(tmp_path, source, places)


@pytest.fixture
def live(settings: Settings, fleet: tuple[FakeSuperset, FakeSuperset]) -> Iterator[httpx.Client]:
    source, target = fleet
    transport = RoutingTransport(source, others={"staging.superset.test": target})
    app = create_app(settings, superset_transport=transport)
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


# 25: each example is a POST /api/deploy/plan through the app against a fake Superset.
@examples(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(planted())
def test_a_planted_secret_never_reaches_post_deploy_plan(
    live: httpx.Client,
    fleet: tuple[FakeSuperset, FakeSuperset],
    auth: AuthHeaders,
    secret: Planted,
) -> None:
    plant(*fleet, secret)
    body = {
        "dashboard_ids": [REPORT_ID],
        "source": {"env_id": "ss-dev"},
        "target_env_id": "staging",
    }
    answer = live.post("/api/deploy/plan", json=body, headers=auth(Role.analyst))
    assert answer.status_code == 200, answer.text
    assert secret.secret not in answer.text
    assert _metric_shown(answer.json())
