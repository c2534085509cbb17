"""Issue 37 §4: the chat's charts come from the tool's own answer — each chart of one group-by
column as bars with its numbers, a comparison's differing numbers in both environments — and
nothing else is drawn (a model's words never are: the tool's JSON is the only input)."""

from __future__ import annotations

from typing import Any

from sstools.agent.figures import MAX_BARS, figures

TABLE: dict[str, Any] = {
    "chart_id": 3,
    "name": "Потребление по регионам",
    "columns": ["region", "SUM(consumption_mwh)"],
    "key_columns": ["region"],
    "rows": [["Москва", 1523.5], ["Казань", 980]],
    "error": None,
}


def test_a_chart_of_one_group_by_column_is_drawn_with_its_numbers() -> None:
    [figure] = figures("get_dashboard_data", {"charts": [TABLE]})
    assert figure.title == "Потребление по регионам"
    assert figure.label == "region"
    assert figure.labels == ["Москва", "Казань"]
    assert [(one.name, one.values) for one in figure.series] == [
        ("SUM(consumption_mwh)", [1523.5, 980.0])
    ]


def test_what_cannot_be_bars_is_not_drawn() -> None:
    one_number = {**TABLE, "columns": ["MAX(peak)"], "key_columns": [], "rows": [[42]]}
    two_keys = {**TABLE, "columns": ["day", "region", "v"], "key_columns": ["day", "region"]}
    words_only = {**TABLE, "rows": [["Москва", "много"]]}
    failed = {**TABLE, "error": "column not found"}
    payload = {"charts": [one_number, two_keys, words_only, failed]}
    assert figures("get_dashboard_data", payload) == []
    assert figures("search_dashboards", {"charts": [TABLE]}) == []  # only a dashboard's numbers
    assert figures("get_dashboard_data", "not json of a dashboard") == []


def test_bars_are_bounded() -> None:
    many = {**TABLE, "rows": [[f"регион {i}", i] for i in range(100)]}
    [figure] = figures("get_dashboard_data", {"charts": [many]})
    assert len(figure.labels) == MAX_BARS


def test_a_comparison_draws_each_differing_number_in_both_environments() -> None:
    payload = {
        "env_id": "ss-dev",
        "other_env_id": "staging",
        "charts": [
            {
                "name": "Потребление по регионам",
                "differs": True,
                "differences": [
                    {"row": ["Москва"], "column": "SUM(mwh)", "here": 26925.38, "there": 13496.73},
                    {"row": ["Казань"], "column": "SUM(mwh)", "here": 10, "there": None},
                ],
            },
            {"name": "Структура", "differs": False, "differences": []},
        ],
    }
    [figure] = figures("get_dashboard_data", payload)
    assert figure.labels == ["Москва", "Казань"]
    assert [(one.name, one.values) for one in figure.series] == [
        ("ss-dev", [26925.38, 10.0]),
        ("staging", [13496.73, None]),
    ]
