"""A plan's changed fields with their values, without Superset: bounds, diffs, words, secrets."""

from __future__ import annotations

import copy
import json
from typing import Any

from sstools.agent.card.impact import plan_changes
from sstools.agent.card.plan import PlanView
from sstools.agent.tools.deploys import DeployArgs, plan_shape
from sstools.domain.deploy import DeploySource, Sources, build_plan, map_sources
from sstools.domain.deploy._portable import MAX_DIFF_BYTES, MAX_VALUE_BYTES
from sstools.domain.deploy.models import ObjectChange, Plan
from sstools.environments import Stage
from sstools.texts.deploy import field_label
from tests.domain.test_deploy_plan import (
    CHART_A,
    DASH,
    DATASET,
    DB,
    MOMENT,
    SOURCE,
    TARGET_DB,
    _files,
    _inventory,
    _target,
    dashboard,
)

DRIFT = "/* dev revision 2: KPI tiles reordered */"


def _plan(source: dict[str, Any], target: dict[str, Any]) -> Plan:
    inventory = _inventory(MOMENT)
    return build_plan(
        map_sources(Sources({DASH: copy.deepcopy(source)}), inventory, {"dev-db": "prod-db"}),
        source=DeploySource(env_id="ss-dev"),
        target_env_id="prod",
        target_stage=Stage.prod,
        found=inventory,
        target_files=_files(target),
    ).plan


def _with(path: str, **fields: Any) -> dict[str, Any]:
    source = copy.deepcopy(SOURCE)
    source[path] = {**source[path], **fields}
    return source


def _object(plan: Plan, kind: str) -> ObjectChange:
    return next(one for one in plan.objects if one.kind == kind)


def test_a_drifted_css_carries_the_targets_value_before_and_the_sources_after() -> None:
    plan = _plan(_with(f"dashboards/{DASH}.yaml", css=DRIFT), _target())
    [change] = _object(plan, "dashboard").changes
    assert (change.field, change.label) == ("css", "CSS")
    assert (change.before, change.after) == ("", DRIFT)  # the target's CSS is empty
    assert change.diff == f"@@ -0,0 +1 @@\n+{DRIFT}"
    assert not change.truncated


def test_a_multi_line_css_reads_as_a_line_diff() -> None:
    before = ".a { color: red; }\n.b { margin: 0; }\n.c { padding: 2px; }"
    after = ".a { color: blue; }\n.b { margin: 0; }\n.c { padding: 2px; }"
    target = _target()
    target[f"dashboards/{DASH}.yaml"] = {**target[f"dashboards/{DASH}.yaml"], "css": before}
    plan = _plan(_with(f"dashboards/{DASH}.yaml", css=after), target)
    [change] = _object(plan, "dashboard").changes
    assert change.diff is not None
    lines = change.diff.splitlines()
    assert "-.a { color: red; }" in lines
    assert "+.a { color: blue; }" in lines
    assert " .b { margin: 0; }" in lines  # context, unchanged


def test_a_10_kb_css_is_cut_at_4_kb_flagged_and_its_diff_bounded() -> None:
    huge = "\n".join(f".tile-{n} {{ color: #{n:06x}; }} /* Плитка */" for n in range(300))
    assert len(huge.encode()) > 10_000
    plan = _plan(_with(f"dashboards/{DASH}.yaml", css=huge), _target())
    [change] = _object(plan, "dashboard").changes
    assert change.truncated
    assert change.after is not None
    assert change.after.endswith("…")
    assert len(change.after.encode()) <= MAX_VALUE_BYTES
    assert huge.startswith(change.after[:-1])
    assert change.diff is not None
    assert len(change.diff.encode()) <= MAX_DIFF_BYTES
    assert change.diff.endswith("…")
    # The card takes the cut values as they are, flagged, and stays within its own budget.
    read = PlanView.of(plan.model_dump(mode="json"))
    assert read is not None
    [shown] = plan_changes(read)
    assert shown.fields[0].truncated
    assert shown.fields[0].after == change.after


def test_a_cut_diff_of_two_long_values_still_shows_both_sides() -> None:
    old = "\n".join(f".old-{n} {{ margin: {n}px; }}" for n in range(500))
    new = "\n".join(f".new-{n} {{ padding: {n}px; }}" for n in range(500))
    target = _target()
    target[f"dashboards/{DASH}.yaml"] = {**target[f"dashboards/{DASH}.yaml"], "css": old}
    plan = _plan(_with(f"dashboards/{DASH}.yaml", css=new), target)
    [change] = _object(plan, "dashboard").changes
    assert change.truncated
    assert change.diff is not None
    assert len(change.diff.encode()) <= MAX_DIFF_BYTES
    lines = change.diff.splitlines()
    assert "-.old-0 { margin: 0px; }" in lines
    assert "+.new-0 { padding: 0px; }" in lines


def test_chart_params_are_named_in_words() -> None:
    plan = _plan(SOURCE, _target(metric="AVG(x)"))
    changes = {one.field: one for one in _object(plan, "chart").changes}
    assert changes["params.metric"].label == "метрика"
    assert (changes["params.metric"].before, changes["params.metric"].after) == ("AVG(x)", "SUM(x)")
    assert changes["params.metric"].diff is None  # one line each: before and after say it
    assert field_label("metadata.native_filter_configuration") == "фильтры"
    assert field_label("json_metadata.native_filter_configuration") == "фильтры"
    assert field_label("params.metrics") == "метрики"
    assert (
        field_label("position.CHART-a.meta.width") == "расположение графиков (CHART-a.meta.width)"
    )
    assert field_label("no_such_key") == "no_such_key"


def test_a_databases_password_never_reaches_the_changes() -> None:
    """Databases are never compared (the deploy never writes them); a password-like key in a
    compared object is masked, never shown."""
    secret = "hunter2-very-secret"
    source = _with(
        f"databases/{DB}.yaml",
        password=secret,
        sqlalchemy_uri=f"postgresql://u:{secret}@db/x",
    )
    source = {
        **source,
        f"datasets/{DATASET}.yaml": {
            **source[f"datasets/{DATASET}.yaml"],
            "extra": json.dumps({"password": secret, "warning_markdown": "Новое"}),
            "access_token": secret,
        },
    }
    target = _target()
    target[f"databases/{TARGET_DB}.yaml"] = {"uuid": TARGET_DB, "password": "other"}
    plan = _plan(source, target)
    assert secret not in plan.model_dump_json()
    dataset = {one.field: one for one in _object(plan, "dataset").changes}
    assert dataset["access_token"].after == "••••••"
    assert dataset["extra"].after is not None
    assert "Новое" in dataset["extra"].after
    assert all(one.changes == [] for one in plan.objects if one.kind == "database")


def test_a_huge_plan_names_its_last_fields_without_their_values() -> None:
    source = copy.deepcopy(SOURCE)
    wide = {f"k{n}": "x" * 3000 for n in range(49)}  # ~3 KB a side, 49 fields
    source[f"charts/{CHART_A}.yaml"] = {**source[f"charts/{CHART_A}.yaml"], "params": wide}
    board = dashboard((4, 2), css="y" * 4000)
    source[f"dashboards/{DASH}.yaml"] = {**board, **{f"f{n}": "z" * 4000 for n in range(40)}}
    plan = _plan(source, _target())
    every = [one for change in plan.objects for one in change.changes]
    omitted = [one for one in every if one.omitted]
    assert omitted
    assert all(one.before is None and one.after is None for one in omitted)
    shown = sum(len((one.before or "") + (one.after or "") + (one.diff or "")) for one in every)
    assert shown <= 256 * 1024
    assert {one.field for one in omitted} <= set(_object(plan, "chart").fields) | set(
        _object(plan, "dashboard").fields
    )


def test_the_digest_is_the_same_for_the_same_plan_with_its_values() -> None:
    first = _plan(_with(f"dashboards/{DASH}.yaml", css=DRIFT), _target())
    again = _plan(_with(f"dashboards/{DASH}.yaml", css=DRIFT), _target())
    assert first.digest == again.digest
    other = _plan(_with(f"dashboards/{DASH}.yaml", css=DRIFT + " "), _target())
    assert other.digest != first.digest


def test_the_model_reads_the_fields_and_a_short_excerpt_only() -> None:
    huge = "/* " + "очень длинный CSS " * 600 + " */"
    plan = _plan(_with(f"dashboards/{DASH}.yaml", css=huge), _target())
    shaped = plan_shape(plan.model_dump(mode="json"), DeployArgs(target_env_id="prod"))
    [board] = [one for one in shaped["objects"] if one["kind"] == "dashboard"]
    assert board["fields"] == ["css"]
    [excerpt] = board["changes"]
    assert excerpt["label"] == "CSS"
    assert excerpt["before"] == ""
    assert excerpt["after"].startswith("/* очень длинный CSS")
    assert len(excerpt["after"]) <= 80
    assert "diff" not in excerpt
    assert len(json.dumps(shaped, ensure_ascii=False)) < 2000
