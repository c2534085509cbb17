"""SC-004: what enters the model is concise by design, on answers recorded from the sandbox.

Each tool's projection keeps ids, names, states and the true totals, is valid JSON, is shorter
than the answer, and ``detail: true`` gives the rest; the offline answers, which render the same
content, still say what they said from the whole answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from sstools.agent.offline.answers import render_content
from sstools.agent.summarize import LIMIT, compact, for_model
from sstools.agent.tools import CATALOGUE, ToolKind
from sstools.testing.recorded import RecordedAnswer, recorded

ANSWERS = {answer.case: answer for answer in recorded()}
# Answers small by nature: they enter the model whole (compacted), no projection needed.
UNSHAPED = {"list_environments", "superset_format_sql", "superset_audit_permissions"}
UNSHAPED |= {"superset_create_dataset", "show_capabilities"}


def model_reads(answer: RecordedAnswer, **args: Any) -> Any:
    spec = CATALOGUE[answer.tool]
    validated = spec.args_model.model_validate(answer.args | args)
    text = for_model(spec, validated, answer.payload)
    assert len(text) <= LIMIT
    return json.loads(text)


def raw_size(payload: Any) -> int:
    return len(json.dumps(payload, ensure_ascii=False, separators=(",", ":")))


# Writes to Superset, which a recording on the shared sandbox must not make.
NOT_RECORDED = {"deploy_dashboard", "execute_migration", "rollback_deploy", "restore_backup"}
NOT_RECORDED |= {"superset_create_dataset"}
# New in issue 33 §3; bench/record_answers.py records it at the next run on the sandbox.
NOT_RECORDED |= {"get_dashboard_timeline"} - {answer.tool for answer in ANSWERS.values()}
# New in issue 37 §2, recorded the same way (its own sandbox test checks its numbers).
NOT_RECORDED |= {"get_dashboard_data"} - {answer.tool for answer in ANSWERS.values()}


def test_the_recorded_answers_cover_every_tool_that_answers_over_http() -> None:
    over_http = {name for name, spec in CATALOGUE.items() if spec.build is not None}
    assert {answer.tool for answer in ANSWERS.values()} == over_http - NOT_RECORDED


def test_every_tool_whose_answer_grows_declares_a_shape() -> None:
    shaped = {name for name, spec in CATALOGUE.items() if spec.shape is not None}
    assert shaped == set(CATALOGUE) - UNSHAPED
    # every task-starting tool answers a task record, shaped alike
    assert all(spec.shape is not None for spec in CATALOGUE.values() if spec.starts_task)


@pytest.mark.parametrize("case", sorted(ANSWERS))
def test_each_recorded_answer_enters_the_model_as_json_no_longer_than_itself(case: str) -> None:
    answer = ANSWERS[case]
    seen = model_reads(answer)
    size = len(json.dumps(seen, ensure_ascii=False, separators=(",", ":")))
    if CATALOGUE[answer.tool].shape is not None and raw_size(answer.payload) > 300:
        assert size < 0.9 * raw_size(answer.payload), case
    else:
        assert size <= raw_size(answer.payload), case


def test_search_keeps_ids_titles_links_and_the_total_and_points_to_the_next_page() -> None:
    answer = ANSWERS["search_340_dashboards"]
    seen = model_reads(answer)
    raw = answer.payload["items"]
    assert [item["id"] for item in seen["items"]] == [item["id"] for item in raw]
    assert [item["title"] for item in seen["items"]] == [item["title"] for item in raw]
    assert seen["items"][0]["url"] == raw[0]["url"]
    assert "slug" not in seen["items"][0]
    assert seen["total"] == 340
    assert "page=1" in seen["note"]
    assert "slug" in model_reads(answer, detail=True)["items"][0]


def test_sql_rows_become_arrays_in_column_order_with_the_row_count() -> None:
    answer = ANSWERS["sql_1000_rows"]
    seen = model_reads(answer)
    columns = answer.payload["columns"]
    assert seen["columns"] == columns
    assert seen["row_count"] == 1000
    assert seen["rows_total_count"] == 1000
    first = answer.payload["rows"][0]
    assert seen["rows"][0] == [compact(first[column]) for column in columns]
    assert 0 < len(seen["rows"]) < 1000
    grouped = model_reads(ANSWERS["sql_grouped"])
    assert len(grouped["rows"]) == grouped["row_count"] == 24  # a short result stays whole
    assert grouped["rows"][0][2] == 5370.42  # the sum, without the float noise of adding


def test_dataset_overview_keeps_what_the_answer_is_made_of_and_the_true_totals() -> None:
    small = model_reads(ANSWERS["dataset_overview"])
    payload = ANSWERS["dataset_overview"].payload
    assert small["id"] == payload["id"]
    assert [c["name"] for c in small["columns"]] == [c["name"] for c in payload["columns"]]
    assert [d["title"] for d in small["dashboards"]] == [d["title"] for d in payload["dashboards"]]
    assert small["review"]["status"] == "unreviewed"
    assert [p["kind"] for p in small["problems"]] == [p["kind"] for p in payload["problems"]]
    assert "viz_type" not in small["charts"][0]
    assert "viz_type" in model_reads(ANSWERS["dataset_overview"], detail=True)["charts"][0]
    big = model_reads(ANSWERS["dataset_150_columns"])
    assert big["columns_total_count"] == 150
    assert big["charts_total_count"] == 60
    assert big["dashboards_total_count"] == 25
    assert big["columns"][0] == {"name": "day 0", "type": "DATE"}


def test_health_keeps_the_verdict_charts_by_id_and_marks_only_a_broken_one() -> None:
    answer = ANSWERS["health_45_charts"]
    payload = json.loads(json.dumps(answer.payload))
    payload["charts"][7]["dataset_resolves"] = False
    spec = CATALOGUE["get_health_summary"]
    seen = json.loads(for_model(spec, spec.args_model(), payload))
    assert seen["status"] == payload["status"]
    assert seen["problems"] == payload["problems"]
    assert [chart["id"] for chart in seen["charts"]] == [chart["id"] for chart in payload["charts"]]
    assert [chart.get("dataset_resolves") for chart in seen["charts"]].count(False) == 1
    assert seen["charts"][7]["dataset_resolves"] is False
    assert "summary" not in seen  # the same facts as a sentence: said once
    detailed = spec.args_model.model_validate({"detail": True})
    assert "summary" in json.loads(for_model(spec, detailed, payload))


def test_validation_shows_errors_first_with_the_counts_and_the_total() -> None:
    seen = model_reads(ANSWERS["validation_80_findings"])
    result = seen["result"]
    assert result["counts"] == {"error": 20, "warning": 40, "info": 20}
    assert result["findings_total_count"] == 80
    severities = [finding["severity"] for finding in result["findings"]]
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
    assert severities[0] == "error"
    assert all("object_id" in finding and "fix" in finding for finding in result["findings"])
    assert seen["id"] == ANSWERS["validation_80_findings"].payload["id"]


def test_task_list_keeps_each_task_id_and_state_but_not_its_result() -> None:
    answer = ANSWERS["tasks_50"]
    seen = model_reads(answer)
    assert seen["items_total_count"] == 50
    assert [task["id"] for task in seen["items"]] == [task["id"] for task in answer.payload[:20]]
    assert all("result" not in task and task["status"] for task in seen["items"])


def test_plan_lists_what_changes_and_counts_what_does_not() -> None:
    answer = ANSWERS["migration_plan_220_objects"]
    seen = model_reads(answer)
    changing = [item for item in answer.payload["objects"] if item["action"] != "unchanged"]
    assert seen["objects_total_count"] == 220
    assert seen["unchanged_count"] == 220 - len(changing)
    assert all(item["action"] != "unchanged" for item in seen["objects"])
    assert seen["objects"][0]["target_id"] == changing[0]["target_id"]
    assert seen["digest"] == answer.payload["digest"]
    small = ANSWERS["migration_plan"]
    detailed = model_reads(small, detail=True)["objects"]  # unchanged ones too, with their uuids
    assert len(detailed) == len(small.payload["objects"]) > len(model_reads(small)["objects"])
    assert "uuid" in detailed[0]


def test_git_status_puts_what_differs_first_and_counts_every_status() -> None:
    answer = ANSWERS["git_status_100_dashboards"]
    seen = model_reads(answer)
    assert sum(seen["statuses"].values()) == len(answer.payload["dashboards"])
    assert seen["dashboards_total_count"] == len(answer.payload["dashboards"])
    assert seen["dashboards"][0]["status"] != "clean"
    assert seen["head"]["id"] == answer.payload["head"]["id"][:12]


def test_an_answer_of_an_unexpected_shape_still_reaches_the_model_whole() -> None:
    spec = CATALOGUE["search_dashboards"]
    odd = {"results": [{"id": 1}], "count": 1}
    assert json.loads(for_model(spec, spec.args_model(), odd)) == odd


@pytest.mark.parametrize("case", sorted(ANSWERS))
def test_offline_answers_say_no_less_than_from_the_whole_answer(case: str) -> None:
    """The offline planner renders the content the model reads: its verdict line is the one
    the whole answer gives, and what it lists it finds in the projection."""
    answer = ANSWERS[case]
    spec = CATALOGUE[answer.tool]
    args = spec.args_model.model_validate(answer.args)
    concise = render_content(
        answer.tool, for_model(spec, args, answer.payload), answer.args, answer.scope.env_id
    )
    whole = render_content(
        answer.tool,
        json.dumps(answer.payload, ensure_ascii=False),
        answer.args,
        answer.scope.env_id,
    )
    assert concise.splitlines()[0] == whole.splitlines()[0]
    assert "{" not in concise  # a renderer recognised the shape: no JSON fell through


def test_reads_offer_detail_and_writes_do_not() -> None:
    with_detail = {n for n, spec in CATALOGUE.items() if "detail" in spec.args_model.model_fields}
    assert with_detail
    assert all(CATALOGUE[name].kind is ToolKind.read for name in with_detail)
