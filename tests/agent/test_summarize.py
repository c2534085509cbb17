"""AGTL-FR-003: large answers are summarised by structure, valid JSON, never over the limit."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sstools.agent.summarize import LIMIT, compact, cut_text, summarize


def test_agtl_fr_003_arrays_keep_top_items_and_the_total() -> None:
    items = [
        {"id": i, "title": f"Дашборд {i}", "owners": [{"n": 1}] * 5, "meta": {"deep": i}}
        for i in range(500)
    ]
    raw = json.dumps({"items": items, "total": 500})
    out = summarize({"items": items, "total": 500})
    assert len(raw) > LIMIT >= len(out)
    data = json.loads(out)
    assert data["items_total_count"] == 500
    assert data["total"] == 500
    assert data["items"][0] == {"id": 0, "title": "Дашборд 0", "owners_count": 5}
    assert [item["id"] for item in data["items"]] == list(range(len(data["items"])))
    assert "показаны первые" in data["note"]


def test_agtl_fr_003_text_is_cut_at_a_sentence_boundary() -> None:
    text = "Первое предложение о потреблении. " * 300
    out = json.loads(summarize(text))
    assert out.endswith("потреблении.…")
    assert cut_text("Раз. Два. Три.", 9) == "Раз.…"


def test_small_answers_pass_unchanged() -> None:
    assert json.loads(summarize({"a": [1, 2]})) == {"a": [1, 2]}


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=400),
    lambda children: (
        st.lists(children, max_size=60)
        | st.dictionaries(st.text(max_size=20), children, max_size=12)
    ),
    max_leaves=400,
)


# 150: nested JSON up to the limit; each example serialises a large value, so fewer than text.
@settings(max_examples=150, deadline=None)
@given(_json)
def test_agtl_fr_003_result_is_always_valid_json_within_the_limit(payload: Any) -> None:
    out = summarize(payload, 600)
    assert len(out) <= 600
    json.loads(out)


def test_every_list_of_an_object_keeps_its_head_and_total() -> None:
    payload = {
        "name": "energy_consumption",
        "columns": [{"name": f"column_{i}", "type": "REAL"} for i in range(150)],
        "charts": [{"id": i, "name": f"График {i}"} for i in range(40)],
        "dashboards": [{"id": i, "title": f"Дашборд {i}"} for i in range(3)],
    }
    data = json.loads(summarize(payload))
    assert data["name"] == "energy_consumption"
    assert data["columns_total_count"] == 150
    k = len(data["columns"])  # every list keeps the same head length
    assert k > 10
    assert len(data["charts"]) == min(k, 40)
    assert ("charts_total_count" in data) == (k < 40)
    assert len(data["dashboards"]) == 3  # short lists stay whole
    assert "dashboards_total_count" not in data


def test_a_total_the_projection_knew_survives_the_summary() -> None:
    """A shape that already kept the first 40 of 150 columns says 150; so does its summary."""
    payload = {
        "columns": [{"name": f"column_{i}", "type": "REAL" * 20} for i in range(40)],
        "columns_total_count": 150,
    }
    data = json.loads(summarize(payload, 1500))
    assert len(data["columns"]) < 40
    assert data["columns_total_count"] == 150
    assert "из 150" in data["note"]


def test_compact_drops_nulls_microseconds_and_float_noise_only() -> None:
    payload = {
        "a": None,
        "at": "2026-11-30T08:32:20.179925Z",
        "utc": "2026-11-30T08:35:50.340087+00:00",
        "local": "2026-11-30T08:35:50+03:00",
        "sum": 5370.419999999999,
        "small": 1e-9,
        "list": [1, None, True],
        "name": "2026-11-30T08:32:20.179925Z is a date",
    }
    assert compact(payload) == {
        "at": "2026-11-30T08:32:20Z",
        "utc": "2026-11-30T08:35:50Z",
        "local": "2026-11-30T08:35:50+03:00",
        "sum": 5370.42,
        "small": 1e-9,
        "list": [1, None, True],
        "name": "2026-11-30T08:32:20.179925Z is a date",
    }
