"""A deploy card into an older Superset says what the plan took out of the files for it."""

from __future__ import annotations

from sstools.agent.card.impact import plan_objects
from sstools.agent.card.plan import PlanView


def test_the_card_lists_the_fields_dropped_for_the_older_target() -> None:
    plan = PlanView.of(
        {
            "digest": "d",
            "dashboards_changed": 1,
            "objects": [
                {"kind": "dashboard", "name": "Energy KPIs", "action": "update", "fields": ["css"]}
            ],
            "source_release": "6.1.0",
            "target_release": "5.0.0",
            "translated": [
                {"kind": "dashboards", "field": "theme_uuid", "objects": 1, "had_content": False},
                {"kind": "datasets", "field": "folders", "objects": 2, "had_content": False},
            ],
        }
    )
    assert plan is not None
    lines = plan_objects(plan)
    assert lines[-1] == (
        "Для Superset 5.0.0 из файлов убраны поля, которых он не знает: "
        "тема дашборда ×1, папки набора ×2"
    )


def test_the_same_release_adds_no_line() -> None:
    plan = PlanView.of(
        {
            "objects": [{"kind": "dashboard", "name": "A", "action": "update", "fields": ["css"]}],
            "target_release": "6.1.0",
            "translated": [],
        }
    )
    assert plan is not None
    assert len(plan_objects(plan)) == 1
