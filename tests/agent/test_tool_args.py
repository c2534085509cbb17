"""Issue 7, item 8: tool arguments that go into a URL path are validated strictly.

Ids are bounded integers (never ``true``), names that become a path segment cannot be one that
encoding leaves dangerous, task ids have one shape, and branch names follow git's ref rules.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from sstools.agent.tools import CATALOGUE


@pytest.mark.parametrize("payload", ["../../../api/users", "..", ".", "a/b", "", "a\\b", "a\x00b"])
def test_dot_segments_and_separators_are_refused_naming_the_field(payload: str) -> None:
    with pytest.raises(ValidationError) as caught:
        CATALOGUE["superset_explore_database"].args_model.model_validate(
            {"database_id": 1, "schema_name": payload}
        )
    assert caught.value.errors()[0]["loc"] == ("schema_name",)


@pytest.mark.parametrize(
    ("tool", "raw"),
    [
        ("superset_explore_database", {"database_id": 2**31}),
        ("superset_explore_database", {"database_id": 0}),
        ("superset_explore_database", {"database_id": True}),
        ("superset_explore_database", {"database_id": 1, "schema_name": "s" * 257}),
        ("get_health_summary", {"dashboard_id": 2**31}),
        ("get_task_status", {"task_id": "task 1"}),
        ("get_task_status", {"task_id": "t" * 65}),
        ("superset_audit_permissions", {"object_id": 2**31}),
        ("commit_changes", {"message": "m", "dashboard_ids": [0]}),
        ("execute_migration", {"target_env_id": "prod", "dashboard_ids": [-1]}),
    ],
)
def test_ids_are_bounded_and_strict(tool: str, raw: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        CATALOGUE[tool].args_model.model_validate(raw)


def test_task_ids_of_the_usual_shapes_are_accepted() -> None:
    model = CATALOGUE["get_task_status"].args_model
    for task_id in ("3f2b9c1e-8d4a-4b6f-9e2a-7c5d1e0f9a3b", "task_0a1b2c", "42"):
        assert model.model_validate({"task_id": task_id}).task_id == task_id  # type: ignore[attr-defined]


# git check-ref-format, rule by rule (plus --branch: no leading "-", not "HEAD" or "@").
BAD_BRANCHES = [
    "a..b",  # two dots
    "feature/.hidden",  # a component starting with a dot
    "topic.lock",  # ends with .lock
    "a/b.lock/c",
    "a//b",  # consecutive slashes
    "/a",
    "a/",
    "a.",  # ends with a dot
    "@",
    "a@{1}",
    "a b",
    "a~1",
    "a^2",
    "a:b",
    "a?",
    "a*",
    "a[b",
    "a\\b",
    "a\x01b",
    "a\x7fb",
    "-rf",
    "HEAD",
    "",
    "b" * 101,
]


@pytest.mark.parametrize("name", BAD_BRANCHES)
def test_branch_names_follow_git_ref_rules(name: str) -> None:
    with pytest.raises(ValidationError) as caught:
        CATALOGUE["create_branch"].args_model.model_validate({"name": name})
    assert caught.value.errors()[0]["loc"] == ("name",)


@pytest.mark.parametrize("name", ["feature/x", "fix-1.2", "release/2024.10", "a.b/c_d", "фича"])
def test_ordinary_branch_names_are_accepted(name: str) -> None:
    CATALOGUE["create_branch"].args_model.model_validate({"name": name})
